/**
 * Child processes for multi-process tests: free loopback UDP ports, and a spawned tsx script
 * whose stdout lines and exit code the test can poll.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { createSocket } from 'node:dgram'

export interface Worker {
  id: string
  proc: ChildProcess
  lines: string[]
  /** undefined while running; the exit code, or null when killed by a signal. */
  exitCode: number | null | undefined
}

/** Free UDP ports on loopback: bound to port 0, read, closed (nothing else binds loopback here). */
export async function freePorts(n: number): Promise<number[]> {
  const ports: number[] = []
  for (let i = 0; i < n; i++) {
    const socket = createSocket('udp4')
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve))
    ports.push(socket.address().port)
    await new Promise<void>((resolve) => socket.close(resolve))
  }
  return ports
}

/**
 * Spawns `node --import tsx <script> '<config as JSON>'` in `cwd` and pushes it on `into` first
 * (for the caller's cleanup). `config.id` names the worker. `prefix` runs it through another
 * command, e.g. `ip netns exec <namespace>`.
 */
export function spawnScript(
  script: string,
  cwd: string,
  config: Record<string, unknown>,
  into: Worker[],
  prefix: readonly string[] = [],
): Worker {
  const argv = [...prefix, process.execPath, '--import', 'tsx', script, JSON.stringify(config)]
  const proc = spawn(argv[0]!, argv.slice(1), { cwd, stdio: ['pipe', 'pipe', 'inherit'] })
  const worker: Worker = { id: config.id as string, proc, lines: [], exitCode: undefined }
  into.push(worker)
  let rest = ''
  proc.stdout!.on('data', (chunk: Buffer) => {
    const parts = (rest + chunk.toString()).split('\n')
    rest = parts.pop()!
    worker.lines.push(...parts)
  })
  proc.once('exit', (code) => {
    worker.exitCode = code
  })
  return worker
}

/** Whether process `pid` still exists (EPERM: it does, owned by someone else). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * SIGKILLs every worker still running and waits (up to 30 s, polling) until all have exited: the
 * cleanup a multi-process test or bench runs in its `finally`, whatever went wrong.
 */
export async function killAll(workers: readonly Worker[]): Promise<void> {
  for (const w of workers) {
    if (w.exitCode === undefined && w.proc.pid !== undefined) {
      try {
        process.kill(w.proc.pid, 'SIGKILL')
      } catch {}
    }
  }
  const deadline = performance.now() + 30_000
  while (workers.some((w) => w.exitCode === undefined) && performance.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 20))
}
