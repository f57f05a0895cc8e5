/** A throwaway redis-server on loopback for the mutex benchmark: no persistence, killed by PID. */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { createConnection, createServer } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'

/** Why redis-server cannot be used here, or undefined when it can. */
export function redisUnavailable(): string | undefined {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' })
  if (probe.error || probe.status !== 0) {
    return 'redis-server not found (Debian: apt-get install redis-server)'
  }
  return undefined
}

export function redisVersion(): string {
  const out = spawnSync('redis-server', ['--version'], { encoding: 'utf8' }).stdout ?? ''
  return /v=(\S+)/.exec(out)?.[1] ?? 'unknown'
}

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port })
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

export interface RedisServer {
  port: number
  pid: number | undefined
  /** SIGTERM, then SIGKILL if it is still there after 2 s. */
  stop(): Promise<void>
  /** For exit handlers. */
  killSync(): void
}

export async function startRedis(readyWithinMs = 5000): Promise<RedisServer> {
  const port = await freePort()
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']
  const child: ChildProcess = spawn('redis-server', [...args, '--daemonize', 'no'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  let running = true
  const exited = new Promise<void>((resolve) =>
    child.once('close', () => {
      running = false
      resolve()
    }),
  )
  const killSync = () => {
    if (running) child.kill('SIGKILL')
  }
  const stop = async () => {
    if (!running) return
    child.kill('SIGTERM')
    let timer: NodeJS.Timeout | undefined
    await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 2000)))])
    clearTimeout(timer)
    killSync()
  }
  const deadline = Date.now() + readyWithinMs
  while (!(await accepts(port))) {
    if (!running || Date.now() > deadline) {
      await stop()
      throw new Error(`redis-server did not accept connections on port ${port}`)
    }
    await sleep(20)
  }
  return { port, pid: child.pid, stop, killSync }
}
