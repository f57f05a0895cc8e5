/**
 * Runs one trial of the mutex benchmark: n client processes (and, for the centralized lock, the
 * coordinator's own process) set up one contender, loop acquire + release for the same window, and
 * report. The worker processes are kept from trial to trial; any that fails a step is killed and
 * the pool is spawned afresh for the next trial.
 */
import { processCpuUs } from './locks-cpu.js'
import { type Contender, isCentralized, nowMs, type WorkerEvent } from './mutex-protocol.js'
import { MutexWorker } from './mutex-workers.js'

export interface RigSettings {
  maxClients: number
  redisPort: number
  ttlMs: number
  retryMs: number
  warmupMs: number
  durationMs: number
  graceMs: number
  /** The redis-server's process, whose CPU time is the Redis locks' server side. */
  redisPid: number | undefined
}

export interface Trial {
  contender: Contender
  clients: number
  /** Acquires per second, all clients together, over the measured window. */
  rate: number
  /** Every client's acquire latencies in the window, in microseconds. */
  latenciesUs: number[]
  /** Acquires per client (fairness). */
  perClient: number[]
  /** Ours: datagrams sent by every process of the trial per acquire + release, warm-up included. */
  datagrams?: { perAcquire: number; acksPerAcquire: number; retransmissions: number }
  /**
   * CPU time per acquire + release (warm-up included), µs: the client processes', the server
   * side's (our coordinator; the redis-server; none for Ricart-Agrawala, whose clients are the
   * whole group), and their sum. Undefined when a process's time could not be read.
   */
  cpuUsPerOp?: { clients: number; server: number; total: number }
  errors: string[]
}

function datagramsPerAcquire(closed: (WorkerEvent | undefined)[], cycles: number) {
  let sent = 0
  let acks = 0
  let retransmissions = 0
  for (const e of closed) {
    if (e?.event !== 'closed' || !e.stats) continue
    sent += e.stats.datagramsSent
    acks += e.stats.acksSent
    retransmissions += e.stats.retransmissions
  }
  if (sent === 0 || cycles === 0) return undefined
  const per = (x: number) => Math.round((x / cycles) * 100) / 100
  return { perAcquire: per(sent), acksPerAcquire: per(acks), retransmissions }
}

function cpuPerOp(clientsUs: number, serverUs: number | undefined, cycles: number) {
  if (serverUs === undefined || cycles === 0) return undefined
  const per = (us: number) => Math.round((us / cycles) * 10) / 10
  return { clients: per(clientsUs), server: per(serverUs), total: per(clientsUs + serverUs) }
}

const setupTimeoutMs = 20_000 // a fresh worker first starts Node and tsx
const stepTimeoutMs = 5_000

export class MutexRig {
  private clients: MutexWorker[] = []
  private coordinator: MutexWorker | undefined
  private trialCount = 0

  constructor(private readonly settings: RigSettings) {}

  async run(contender: Contender, n: number): Promise<Trial> {
    const s = this.settings
    if (!this.coordinator?.alive || this.clients.some((w) => !w.alive)) await this.respawn()
    const trial = ++this.trialCount
    const parts = this.clients.slice(0, n).map((w, i) => ({ w, id: `c${i}`, client: true }))
    if (isCentralized(contender)) parts.push({ w: this.coordinator!, id: 'coord', client: false })
    const members = parts.map((p) => p.id)
    const errors: string[] = []
    const step = async (kind: WorkerEvent['event'], who: typeof parts, timeoutMs: number) => {
      const events = await Promise.all(who.map((p) => p.w.waitForTrial(trial, kind, timeoutMs)))
      events.forEach((e, i) => {
        if (e?.event === 'failed') errors.push(`${who[i]!.id}: ${e.error}`)
        else if (!e) errors.push(`${who[i]!.id}: no '${kind}' within ${timeoutMs} ms`)
      })
      return events
    }
    for (const p of parts) {
      const spec = {
        trial,
        contender,
        id: p.id,
        role: p.client ? ('client' as const) : ('coordinator' as const),
        members,
        coordinator: 'coord',
        redisPort: s.redisPort,
        key: `sd-bench-mutex-${process.pid}-${trial}`,
        ttlMs: s.ttlMs,
        retryMs: s.retryMs,
      }
      p.w.send({ cmd: 'setup', spec })
    }
    const bound = await step('bound', parts, setupTimeoutMs)
    const ports: Record<string, number> = {}
    bound.forEach((e, i) => {
      if (e?.event === 'bound') ports[parts[i]!.id] = e.port
    })
    if (errors.length === 0) {
      for (const p of parts) p.w.send({ cmd: 'peers', trial, ports })
      await step('ready', parts, stepTimeoutMs)
    }
    const perClient: number[] = []
    let cycles = 0
    let clientCpuUs = 0
    let serverCpuUs: number | undefined = 0
    const latenciesUs: number[] = []
    if (errors.length === 0) {
      const serverPid = isCentralized(contender)
        ? this.coordinator!.pid
        : contender === 'ricart-agrawala'
          ? undefined
          : s.redisPid
      const serverBefore = processCpuUs(serverPid)
      const clients = parts.filter((p) => p.client)
      const run = {
        trial,
        startAt: nowMs() + 100,
        warmupMs: s.warmupMs,
        durationMs: s.durationMs,
        graceMs: s.graceMs,
      }
      for (const p of clients) p.w.send({ cmd: 'run', run })
      const total = 100 + s.warmupMs + s.durationMs + s.graceMs + stepTimeoutMs
      const done = await step('done', clients, total)
      const serverAfter = processCpuUs(serverPid)
      serverCpuUs =
        serverPid === undefined
          ? 0
          : serverBefore !== undefined && serverAfter !== undefined
            ? serverAfter - serverBefore
            : undefined
      for (const [i, e] of done.entries()) {
        if (e?.event !== 'done') continue
        perClient.push(e.report.acquires)
        cycles += e.report.cycles
        clientCpuUs += e.report.cpuUs
        for (const us of e.report.latenciesUs) latenciesUs.push(us)
        if (e.report.error) errors.push(`${clients[i]!.id}: ${e.report.error}`)
      }
    }
    for (const p of parts) p.w.send({ cmd: 'teardown', trial })
    const closed = await step('closed', parts, stepTimeoutMs)
    const datagrams = datagramsPerAcquire(closed, cycles)
    if (errors.length > 0) await this.close() // fresh processes for the next trial
    const acquires = perClient.reduce((a, b) => a + b, 0)
    return {
      contender,
      clients: n,
      rate: (acquires * 1000) / s.durationMs,
      latenciesUs,
      perClient,
      datagrams,
      cpuUsPerOp: cpuPerOp(clientCpuUs, serverCpuUs, cycles),
      errors,
    }
  }

  private async respawn(): Promise<void> {
    await this.close()
    this.clients = Array.from({ length: this.settings.maxClients }, () => new MutexWorker())
    this.coordinator = new MutexWorker()
  }

  async close(): Promise<void> {
    await Promise.all([...this.clients, this.coordinator].map((w) => w?.close()))
    this.clients = []
    this.coordinator = undefined
  }
}
