/**
 * A benchmark's handle on a worker process that takes JSON commands on stdin and reports JSON
 * events on stdout, one per line. Workers are TypeScript, loaded through tsx with the benchmarks'
 * run config (no source path mapping), so they measure the built packages.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const tsxLoader = import.meta.resolve('tsx')
const runTsconfig = fileURLToPath(new URL('../../tsconfig.run.json', import.meta.url))

/** The arguments that make `node` run the worker script `file` as the benchmarks run. */
export function nodeArgs(file: string): string[] {
  // SD_BENCH_WORKER_FLAGS: extra Node flags for the workers (e.g. "--cpu-prof"), for profiling.
  const extra = process.env.SD_BENCH_WORKER_FLAGS?.split(' ').filter(Boolean) ?? []
  return [process.execPath, ...extra, '--import', tsxLoader, file]
}

/** Every worker not yet known to be dead, so exit handlers can kill them synchronously by PID. */
const live = new Set<ChildProcess>()

export function killAllWorkersSync(): void {
  for (const child of live) child.kill('SIGKILL')
  live.clear()
}

interface Waiter<Event> {
  match: (event: Event) => boolean
  resolve: (event: Event | undefined) => void
}

export class LineWorker<Command, Event> {
  private readonly child: ChildProcess
  private readonly exited: Promise<void>
  /** Events nobody waited for yet. */
  private readonly backlog: Event[] = []
  private readonly waiters = new Set<Waiter<Event>>()

  /** Starts `command args` (see `nodeArgs`); `label` names its stray output lines. */
  constructor(
    command: string,
    args: readonly string[],
    private readonly label: string,
  ) {
    this.child = spawn(command, args, {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, TSX_TSCONFIG_PATH: runTsconfig },
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

  /** The process id (for reading its CPU time from /proc). */
  get pid(): number | undefined {
    return this.child.pid
  }

  get alive(): boolean {
    return live.has(this.child)
  }

  send(command: Command): void {
    if (this.alive) this.child.stdin!.write(`${JSON.stringify(command)}\n`)
  }

  /**
   * The first event (already received or to come) that matches, or undefined after `timeoutMs`,
   * once `signal` aborts, or when the worker dies.
   */
  waitFor(
    match: (event: Event) => boolean,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<Event | undefined> {
    const index = this.backlog.findIndex(match)
    if (index >= 0) return Promise.resolve(this.backlog.splice(index, 1)[0])
    if (signal?.aborted || !this.alive) return Promise.resolve(undefined)
    return new Promise((resolve) => {
      const done = (event: Event | undefined) => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', abandon)
        this.waiters.delete(waiter)
        resolve(event)
      }
      const abandon = () => done(undefined)
      const waiter: Waiter<Event> = { match, resolve: done }
      const timer = setTimeout(abandon, timeoutMs)
      signal?.addEventListener('abort', abandon, { once: true })
      this.waiters.add(waiter)
    })
  }

  /** Removes and returns the unclaimed events that match. */
  take(match: (event: Event) => boolean): Event[] {
    const taken = this.backlog.filter(match)
    const kept = this.backlog.filter((event) => !match(event))
    this.backlog.splice(0, this.backlog.length, ...kept)
    return taken
  }

  /** Kills the process and waits (at most 5 s) until it is gone. */
  async kill(): Promise<void> {
    if (!this.alive) return
    this.child.kill('SIGKILL')
    await this.exitWithin(5000)
  }

  /** Closes stdin, which the worker takes as the order to exit; kills it if it has not within 2 s. */
  async close(): Promise<void> {
    if (!this.alive) return
    this.child.stdin!.end()
    await this.exitWithin(2000)
    await this.kill()
  }

  private async exitWithin(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined
    await Promise.race([this.exited, new Promise((r) => (timer = setTimeout(r, ms)))])
    clearTimeout(timer)
  }

  private receive(line: string): void {
    let event: Event
    try {
      event = JSON.parse(line) as Event
    } catch {
      console.error(`${this.label}: ${line}`)
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
