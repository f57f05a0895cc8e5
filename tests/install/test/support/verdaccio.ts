/**
 * A throwaway npm registry: verdaccio (the devDependency pinned at 5.15.4) on 127.0.0.1 with its
 * storage in a temporary folder and no uplinks, so nothing is fetched through it from outside.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { killGroup } from './commands.js'

const START_TIMEOUT_MS = 30_000
const STOP_TIMEOUT_MS = 10_000

export interface Registry {
  url: string
  port: number
  proc: ChildProcess
  /** What verdaccio wrote, for a failure message. */
  output: () => string
}

/** The verdaccio entry script, or undefined when the package is not installed. */
export function verdaccioBin(): string | undefined {
  try {
    const manifest = createRequire(import.meta.url).resolve('verdaccio/package.json')
    return join(dirname(manifest), 'bin', 'verdaccio')
  } catch {
    return undefined
  }
}

/** Starts verdaccio with its config, storage and htpasswd in `dir`; resolves once it answers. */
export async function startVerdaccio(bin: string, dir: string): Promise<Registry> {
  const port = await freeTcpPort()
  const config = join(dir, 'config.yaml')
  writeFileSync(
    config,
    [
      `storage: ${join(dir, 'storage')}`,
      'auth:',
      '  htpasswd:',
      `    file: ${join(dir, 'htpasswd')}`,
      '    max_users: 100',
      'uplinks: {}',
      'packages:',
      "  '**':",
      '    access: $all',
      '    publish: $all',
      `listen: 127.0.0.1:${port}`,
      'log: { type: stdout, format: pretty, level: warn }',
      '',
    ].join('\n'),
  )
  // Its own process group, so stopVerdaccio reaches anything it starts.
  const proc = spawn(process.execPath, [bin, '--config', config], {
    cwd: dir,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  proc.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  proc.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  const registry: Registry = { url: `http://127.0.0.1:${port}`, port, proc, output: () => output }
  const deadline = Date.now() + START_TIMEOUT_MS
  while (Date.now() < deadline) {
    if (proc.exitCode !== null || proc.signalCode !== null) break
    if (await answers(`${registry.url}/-/ping`)) return registry
    await sleep(200)
  }
  await stopVerdaccio(registry)
  throw new Error(
    `verdaccio did not answer on ${registry.url} within ${START_TIMEOUT_MS} ms:\n${output}`,
  )
}

/** SIGTERM to its process group, SIGKILL if it is still there after a bounded wait. */
export async function stopVerdaccio(registry: Registry): Promise<void> {
  const { proc } = registry
  if (proc.exitCode !== null || proc.signalCode !== null) return
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()))
  killGroup(proc.pid, 'SIGTERM')
  const timeout = sleep(STOP_TIMEOUT_MS).then(() => 'timeout' as const)
  if ((await Promise.race([exited, timeout])) === 'timeout') {
    killGroup(proc.pid, 'SIGKILL')
    await Promise.race([exited, sleep(STOP_TIMEOUT_MS)])
  }
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) })
    return response.ok
  } catch {
    return false
  }
}

/** A TCP port free on loopback now: bound to port 0, read, closed. */
function freeTcpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}
