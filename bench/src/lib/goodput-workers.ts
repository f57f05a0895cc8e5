/** The benchmark's handle on a worker process running inside a network namespace. */
import { type ChildProcess, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import type { WorkerCommand, WorkerEvent } from './goodput-protocol.js'

const workerFile = fileURLToPath(new URL('./goodput-worker.ts', import.meta.url))
// The worker is TypeScript too: load it through the same tsx, with the benchmarks' run config
// (no source path mapping), so it measures the built package whatever state the sources are in.
const tsxLoader = import.meta.resolve('tsx')
const workerTsconfig = fileURLToPath(new URL('../../tsconfig.run.json', import.meta.url))

/** Every worker not yet known to be dead, so exit handlers can kill them synchronously. */
const live = new Set<ChildProcess>()

export function killAllWorkersSync(): void {
  for (const child of live) child.kill('SIGKILL')
  live.clear()
}

interface Waiter {
  match: (event: WorkerEvent) => boolean
  resolve: (event: WorkerEvent | undefined) => void
}

export class NsWorker {
  private readonly child: ChildProcess
  private readonly exited: Promise<void>
  /** Events nobody waited for yet. */
  private readonly backlog: WorkerEvent[] = []
  private readonly waiters = new Set<Waiter>()

  constructor(namespace: string, role: 'sender' | 'receiver', self: string, peer: string) {
    // `ip netns exec` enters the namespace and execs node: the pid is node's own.
    const args = ['netns', 'exec', namespace, process.execPath, '--import', tsxLoader, workerFile]
    this.child = spawn('ip', [...args, role, self, peer], {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, TSX_TSCONFIG_PATH: workerTsconfig },
    })
    live.add(this.child)
    this.exited = new Promise((resolve) =>
      this.child.once('close', () => {
        live.delete(this.child)
        // Nothing more will come: nobody waits for a dead process until their timeout.
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

  /**
   * The first event (already received or to come) that matches, or undefined after `timeoutMs` or
   * once `signal` aborts.
   */
  waitFor(
    match: (event: WorkerEvent) => boolean,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<WorkerEvent | undefined> {
    const index = this.backlog.findIndex(match)
    if (index >= 0) return Promise.resolve(this.backlog.splice(index, 1)[0])
    if (signal?.aborted || !this.alive) return Promise.resolve(undefined)
    return new Promise((resolve) => {
      const done = (event: WorkerEvent | undefined) => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', abandon)
        this.waiters.delete(waiter)
        resolve(event)
      }
      const abandon = () => done(undefined)
      const waiter: Waiter = { match, resolve: done }
      const timer = setTimeout(abandon, timeoutMs)
      signal?.addEventListener('abort', abandon, { once: true })
      this.waiters.add(waiter)
    })
  }

  /** Removes and returns the unclaimed events that match. */
  take(match: (event: WorkerEvent) => boolean): WorkerEvent[] {
    const taken = this.backlog.filter(match)
    const kept = this.backlog.filter((event) => !match(event))
    this.backlog.splice(0, this.backlog.length, ...kept)
    return taken
  }

  /** Kills the process and waits (at most 5 s) until it is gone. */
  async kill(): Promise<void> {
    if (!this.alive) return
    this.child.kill('SIGKILL')
    let timer: NodeJS.Timeout | undefined
    await Promise.race([this.exited, new Promise((r) => (timer = setTimeout(r, 5000)))])
    clearTimeout(timer)
  }

  /** Closes stdin, which the worker takes as the order to exit; kills it if it has not within 2 s. */
  async close(): Promise<void> {
    if (!this.alive) return
    this.child.stdin!.end()
    let timer: NodeJS.Timeout | undefined
    await Promise.race([this.exited, new Promise((r) => (timer = setTimeout(r, 2000)))])
    clearTimeout(timer)
    await this.kill()
  }

  private receive(line: string): void {
    let event: WorkerEvent
    try {
      event = JSON.parse(line) as WorkerEvent
    } catch {
      console.error(`goodput worker: ${line}`)
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
