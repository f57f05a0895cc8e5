/**
 * Three worker processes, one node each, and what they report during a trial. Workers stay up from
 * trial to trial; a killed (or silent) one is replaced by a fresh process before the next trial.
 */
import {
  type Contender,
  type ElectionSettings,
  type Mark,
  nowMs,
  type View,
  type WorkerEvent,
} from './election-protocol.js'
import { type State, stretches } from './election-timeline.js'
import { ElectionWorker } from './election-workers.js'

// A fresh worker first loads tsx, the transport, the election and node-discover: allow for that on
// a busy machine.
const helloTimeoutMs = 20_000
const stepTimeoutMs = 10_000

export const ids = ['n1', 'n2', 'n3'] as const

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export class Group {
  private readonly workers: Array<ElectionWorker | undefined>
  /** Workers that said hello (once, when they had loaded). */
  private readonly loaded = new WeakSet<ElectionWorker>()

  /** `hosts[i]`: the address node i binds; `namespaces[i]`: where its process runs (or loopback). */
  constructor(
    readonly hosts: readonly string[],
    private readonly namespaces?: readonly string[],
  ) {
    this.workers = hosts.map(() => undefined)
  }

  /** Spawns the missing workers and waits until every one has loaded; false if one did not. */
  async ready(): Promise<boolean> {
    this.workers.forEach((worker, i) => {
      if (!worker?.alive) this.workers[i] = new ElectionWorker(this.namespaces?.[i])
    })
    const hellos = await Promise.all(
      this.workers.map(async (w) => {
        if (this.loaded.has(w!)) return true
        const hello = await w!.waitFor((e) => e.event === 'hello', helloTimeoutMs)
        if (hello) this.loaded.add(w!)
        return hello !== undefined
      }),
    )
    return hellos.every(Boolean)
  }

  /**
   * SIGKILLs the process of node `index` and waits until it is gone. `ready` replaces it (not at
   * once: a process loading its modules would compete for the CPU with the survivors).
   */
  async kill(index: number): Promise<void> {
    await this.workers[index]?.kill()
    this.workers[index] = undefined
  }

  /** Sets up and starts one node per worker; the trial records their views from before the start. */
  async start(
    trial: number,
    contender: Contender,
    settings: ElectionSettings,
  ): Promise<Trial | string> {
    const workers = this.workers.filter((w) => w?.alive) as ElectionWorker[]
    if (workers.length !== this.workers.length) return 'setup: a worker is missing'
    workers.forEach((worker, i) => {
      const host = this.hosts[i]!
      worker.send({
        cmd: 'setup',
        spec: { trial, contender, id: ids[i]!, members: [...ids], host, settings },
      })
    })
    const bound = await Promise.all(
      workers.map((w) => w.waitForTrial(trial, 'bound', stepTimeoutMs)),
    )
    const ports: number[] = []
    for (const event of bound) {
      if (event?.event !== 'bound') return failure('setup', event)
      ports.push(event.port)
    }
    const record = new Trial(trial, workers)
    workers.forEach((worker, i) => {
      const peers: Record<string, string> = {}
      ids.forEach((id, j) => {
        if (j !== i) peers[id] = `${this.hosts[j]}:${ports[j]}`
      })
      worker.send({ cmd: 'start', trial, peers })
    })
    const started = await Promise.all(
      workers.map((w) => w.waitForTrial(trial, 'started', stepTimeoutMs)),
    )
    for (const event of started) {
      if (event?.event !== 'started') {
        record.stop()
        return failure('start', event)
      }
    }
    return record
  }

  /** Stops the trial's nodes; a worker that does not answer is killed (and replaced later). */
  async teardown(trial: Trial): Promise<void> {
    trial.stop()
    await Promise.all(
      this.workers.map(async (worker, i) => {
        if (!worker?.alive) return
        worker.send({ cmd: 'teardown', trial: trial.trial })
        const closed = await worker.waitForTrial(trial.trial, 'closed', stepTimeoutMs)
        worker.take((e) => 'trial' in e && e.trial === trial.trial)
        if (closed?.event !== 'closed') {
          await worker.kill()
          this.workers[i] = undefined
        }
      }),
    )
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w?.close()))
    this.workers.fill(undefined)
  }
}

function failure(step: string, event: WorkerEvent | undefined): string {
  if (event?.event === 'failed') return `${step}: ${event.error}`
  return `${step}: no answer in time`
}

/** The views of one trial's nodes, as they come. */
export class Trial {
  readonly views: View[] = []
  /** Ours: the protocol events the failover's breakdown is made of, as they came. */
  readonly marks: Mark[] = []
  private readonly latest = new Map<string, View>()
  private readonly stopped = new AbortController()
  private readonly listeners = new Set<() => void>()

  constructor(
    readonly trial: number,
    workers: readonly ElectionWorker[],
  ) {
    for (const worker of workers) void this.pump(worker)
  }

  get state(): State {
    return this.latest
  }

  stop(): void {
    this.stopped.abort()
    for (const listener of this.listeners) listener()
  }

  /**
   * Resolves true as soon as `holds` is true of the latest views, false after `timeoutMs` (or if
   * the trial stops first).
   */
  until(holds: (state: State) => boolean, timeoutMs: number): Promise<boolean> {
    if (holds(this.latest)) return Promise.resolve(true)
    return new Promise((resolve) => {
      const done = (result: boolean) => {
        clearTimeout(timer)
        this.listeners.delete(check)
        resolve(result)
      }
      const check = () => {
        if (holds(this.latest)) done(true)
        else if (this.stopped.signal.aborted) done(false)
      }
      const timer = setTimeout(() => done(false), timeoutMs)
      this.listeners.add(check)
    })
  }

  /**
   * Waits until `holds` has been true without a break for `settleMs` (checked as views come), at
   * most `timeoutMs` in all; true if it was.
   */
  async settled(holds: (state: State) => boolean, settleMs: number, timeoutMs: number) {
    const deadline = nowMs() + timeoutMs
    while (nowMs() < deadline) {
      if (!(await this.until(holds, deadline - nowMs()))) return false
      const since = nowMs()
      await sleep(settleMs)
      const now = nowMs()
      const last = stretches(this.views, since, now, holds).at(-1)
      if (last && last[0] <= since && last[1] >= now) return true
    }
    return false
  }

  private async pump(worker: ElectionWorker): Promise<void> {
    const ofTrial = (e: WorkerEvent) =>
      (e.event === 'view' || e.event === 'mark') && e.trial === this.trial
    while (!this.stopped.signal.aborted && worker.alive) {
      const event = await worker.waitFor(ofTrial, 60_000, this.stopped.signal)
      if (event?.event === 'mark') {
        const { event: _, ...mark } = event
        this.marks.push(mark)
        continue
      }
      if (event?.event !== 'view') continue
      const { event: _, ...view } = event
      this.views.push(view)
      this.latest.set(view.id, view)
      for (const listener of [...this.listeners]) listener()
    }
  }
}
