/** The benchmark's handle on one mutex worker process (see mutex-worker.ts). */
import { type ChildProcess, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import type { WorkerCommand, WorkerEvent } from './mutex-protocol.js'

const workerFile = fileURLToPath(new URL('./mutex-worker.ts', import.meta.url))
// Workers load the built packages: tsx with the benchmarks' run config (no source path mapping).
const tsxLoader = import.meta.resolve('tsx')
const workerTsconfig = fileURLToPath(new URL('../../tsconfig.run.json', import.meta.url))

/** Every worker not yet known to be dead, so exit handlers can kill them synchronously by PID. */
const live = new Set<ChildProcess>()

export function killAllWorkersSync(): void {
  for (const child of live) child.kill('SIGKILL')
  live.clear()
}

type Waiter = { match: (e: WorkerEvent) => boolean; resolve: (e: WorkerEvent | undefined) => void }

export class MutexWorker {
  private readonly child: ChildProcess
  private readonly exited: Promise<void>
  private readonly backlog: WorkerEvent[] = []
  private readonly waiters = new Set<Waiter>()

  constructor() {
    this.child = spawn(process.execPath, ['--import', tsxLoader, workerFile], {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, TSX_TSCONFIG_PATH: workerTsconfig },
    })
    live.add(this.child)
    this.exited = new Promise((resolve) =>
      this.child.once('close', () => {
        live.delete(this.child)
        for (const waiter of this.waiters) waiter.resolve(undefined)
        resolve()
      }),
    )
    this.child.stdin!.on('error', () => {}) // writing to a worker that just died
    createInterface({ input: this.child.stdout! }).on('line', (line) => this.receive(line))
  }

  get alive(): boolean {
    return live.has(this.child)
  }

  send(command: WorkerCommand): void {
    if (this.alive) this.child.stdin!.write(`${JSON.stringify(command)}\n`)
  }

  /** The first event of `trial` of one of `kinds` (or 'failed'), or undefined after `timeoutMs`. */
  waitFor(trial: number, kind: WorkerEvent['event'], timeoutMs: number) {
    const match = (e: WorkerEvent) =>
      e.trial === trial && (e.event === kind || e.event === 'failed')
    const index = this.backlog.findIndex(match)
    if (index >= 0) return Promise.resolve(this.backlog.splice(index, 1)[0])
    if (!this.alive) return Promise.resolve(undefined)
    return new Promise<WorkerEvent | undefined>((resolve) => {
      const done = (event: WorkerEvent | undefined) => {
        clearTimeout(timer)
        this.waiters.delete(waiter)
        resolve(event)
      }
      const waiter: Waiter = { match, resolve: done }
      const timer = setTimeout(() => done(undefined), timeoutMs)
      this.waiters.add(waiter)
    })
  }

  /** Closes stdin (the worker exits); kills it by PID if it is still there after 2 s. */
  async close(): Promise<void> {
    if (!this.alive) return
    this.child.stdin!.end()
    let timer: NodeJS.Timeout | undefined
    await Promise.race([this.exited, new Promise((r) => (timer = setTimeout(r, 2000)))])
    clearTimeout(timer)
    if (this.alive) this.child.kill('SIGKILL')
    await Promise.race([this.exited, new Promise((r) => (timer = setTimeout(r, 2000)))])
    clearTimeout(timer)
  }

  private receive(line: string): void {
    let event: WorkerEvent
    try {
      event = JSON.parse(line) as WorkerEvent
    } catch {
      console.error(`mutex worker: ${line}`)
      return
    }
    for (const waiter of this.waiters) {
      if (waiter.match(event)) {
        waiter.resolve(event)
        return
      }
    }
    this.backlog.push(event)
  }
}
