/**
 * Runs one trial of a lock-family benchmark (`mutex.rw`, `mutex.semaphore`): one client process
 * per role (and, for the centralized lock, the coordinator's own process) sets up one contender,
 * runs its bounded loop from a shared start, and reports; then the critical sections of every
 * client are checked together (locks-check.ts). Worker processes are kept from trial to trial;
 * when one fails a step, they are all killed and spawned afresh for the next trial.
 */
import { fileURLToPath } from 'node:url'
import { LineWorker, nodeArgs } from './line-worker.js'
import { type ClientSpans, checkSections, type LockCheck } from './locks-check.js'
import { processCpuUs } from './locks-cpu.js'
import type {
  ClientRole,
  FamilyCommand,
  FamilyContender,
  FamilyEvent,
  FamilyLoopReport,
  OursOptions,
} from './locks-protocol.js'
import { nowMs } from './mutex-protocol.js'

const workerFile = fileURLToPath(new URL('./locks-worker.ts', import.meta.url))

class LocksWorker extends LineWorker<FamilyCommand, FamilyEvent> {
  constructor() {
    const [node, ...args] = nodeArgs(workerFile)
    super(node!, args, 'lock-family worker')
  }

  waitForTrial(trial: number, kind: FamilyEvent['event'], timeoutMs: number) {
    return this.waitFor(
      (e) => e.trial === trial && (e.event === kind || e.event === 'failed'),
      timeoutMs,
    )
  }
}

export interface LocksRigSettings {
  redisPort: number
  redisPid: number | undefined
  ttlMs: number
  retryMs: number
  /** Operations per client per trial. */
  ops: number
  csUs: number
  /** A trial's clients give up this long after its start (bounded runs). */
  maxTrialMs: number
}

export interface ClientResult extends ClientSpans {
  report?: FamilyLoopReport
}

export interface FamilyTrial {
  contender: FamilyContender
  /** Shared start of the clients' loops, µs on the monotonic clock. */
  startUs: number
  clients: ClientResult[]
  /** CPU of the lock's server side over the trial: our coordinator, or the redis-server, µs. */
  serverCpuUs?: number
  check: LockCheck
  errors: string[]
}

const setupTimeoutMs = 20_000 // a fresh worker first starts Node and tsx
const stepTimeoutMs = 5_000

export class LocksRig {
  private clients: LocksWorker[] = []
  private coordinator: LocksWorker | undefined
  private trialCount = 0

  constructor(
    private readonly settings: LocksRigSettings,
    private readonly maxClients: number,
  ) {}

  /** One trial of `contender`, client i asking for `roles[i]`; `limit`: a semaphore's permits. */
  async run(
    contender: FamilyContender,
    roles: ClientRole[],
    limit?: number,
    oursOptions?: OursOptions,
  ): Promise<FamilyTrial> {
    const s = this.settings
    if (!this.coordinator?.alive || this.clients.some((w) => !w.alive)) await this.respawn()
    const trial = ++this.trialCount
    const parts = roles.map((asks, i) => ({ w: this.clients[i]!, id: `c${i}`, asks }))
    const everyone: { w: LocksWorker; id: string; asks?: ClientRole }[] = [...parts]
    if (contender === 'centralized') everyone.push({ w: this.coordinator!, id: 'coord' })
    const members = everyone.map((p) => p.id)
    const errors: string[] = []
    const step = async (kind: FamilyEvent['event'], who: typeof everyone, timeoutMs: number) => {
      const events = await Promise.all(who.map((p) => p.w.waitForTrial(trial, kind, timeoutMs)))
      events.forEach((e, i) => {
        if (e?.event === 'failed') errors.push(`${who[i]!.id}: ${e.error}`)
        else if (!e) errors.push(`${who[i]!.id}: no '${kind}' within ${timeoutMs} ms`)
      })
      return events
    }
    for (const p of everyone) {
      const spec = {
        trial,
        contender,
        id: p.id,
        role: p.asks ? ('client' as const) : ('coordinator' as const),
        ...(p.asks ? { asks: p.asks } : {}),
        members,
        coordinator: 'coord',
        redisPort: s.redisPort,
        key: `sd-bench-locks-${process.pid}-${trial}`,
        ttlMs: s.ttlMs,
        retryMs: s.retryMs,
        ...(oursOptions !== undefined ? { oursOptions } : {}),
      }
      p.w.send({ cmd: 'setup', spec })
    }
    const bound = await step('bound', everyone, setupTimeoutMs)
    const ports: Record<string, number> = {}
    bound.forEach((e, i) => {
      if (e?.event === 'bound') ports[everyone[i]!.id] = e.port
    })
    if (errors.length === 0) {
      for (const p of everyone) p.w.send({ cmd: 'peers', trial, ports })
      await step('ready', everyone, stepTimeoutMs)
    }
    const startAt = nowMs() + 100
    const clients: ClientResult[] = parts.map((p) => ({ id: p.id, asks: p.asks, spans: [] }))
    let serverCpuUs: number | undefined
    if (errors.length === 0) {
      const serverPid = contender === 'centralized' ? this.coordinator!.pid : s.redisPid
      const serverBefore = processCpuUs(serverPid)
      const run = { trial, startAt, ops: s.ops, csUs: s.csUs, deadline: startAt + s.maxTrialMs }
      for (const p of parts) p.w.send({ cmd: 'run', run })
      const done = await step('done', parts, 100 + s.maxTrialMs + stepTimeoutMs)
      const serverAfter = processCpuUs(serverPid)
      if (serverBefore !== undefined && serverAfter !== undefined)
        serverCpuUs = serverAfter - serverBefore
      done.forEach((e, i) => {
        if (e?.event !== 'done') return
        clients[i]!.report = e.report
        clients[i]!.spans = e.report.spans
        if (e.report.error) errors.push(`${parts[i]!.id}: ${e.report.error}`)
      })
    }
    for (const p of everyone) p.w.send({ cmd: 'teardown', trial })
    await step('closed', everyone, stepTimeoutMs)
    if (errors.length > 0) await this.close() // fresh processes for the next trial
    return {
      contender,
      startUs: Math.round(startAt * 1000),
      clients,
      ...(serverCpuUs !== undefined ? { serverCpuUs } : {}),
      check: checkSections(clients, limit),
      errors,
    }
  }

  private async respawn(): Promise<void> {
    await this.close()
    this.clients = Array.from({ length: this.maxClients }, () => new LocksWorker())
    this.coordinator = new LocksWorker()
  }

  async close(): Promise<void> {
    await Promise.all([...this.clients, this.coordinator].map((w) => w?.close()))
    this.clients = []
    this.coordinator = undefined
  }
}

/** Every live worker, killed by PID from exit handlers. */
export { killAllWorkersSync } from './line-worker.js'
