/**
 * Turns the lock-family trials into result figures: per role (readers, writers, permit holders),
 * ops per second and acquire latency, the CPU of every process per operation, and the
 * correctness check; medians over rounds, ratios paired by round (ours / baseline).
 */

import type { ClientRole, FamilyContender, OursOptions } from './locks-protocol.js'
import type { FamilyTrial } from './locks-rig.js'
import { median, percentile } from './measure.js'
import type { BenchResult } from './result.js'

const round0 = Math.round
const round3 = (x: number) => Math.round(x * 1000) / 1000

/** How one trial went for the clients of one role. */
export interface RoleSummary {
  ops: number
  /** ops / (the last of these clients finished - the shared start), per second. */
  rate: number
  p50Ms: number | null
  p99Ms: number | null
}

export function roleSummary(t: FamilyTrial, kind: ClientRole['kind']): RoleSummary {
  const mine = t.clients.filter((c) => c.asks.kind === kind && c.report)
  const ops = mine.reduce((sum, c) => sum + c.report!.ops, 0)
  const lastUs = Math.max(t.startUs, ...mine.map((c) => c.report!.finishedUs))
  const latencies = mine.flatMap((c) => c.report!.latenciesUs)
  const ms = (p: number) => (latencies.length > 0 ? round3(percentile(latencies, p) / 1000) : null)
  return {
    ops,
    rate: lastUs > t.startUs ? (ops * 1e6) / (lastUs - t.startUs) : 0,
    p50Ms: ms(50),
    p99Ms: ms(99),
  }
}

/** CPU (user + system) per operation, µs: the clients, the server side, all together. */
export function cpuPerOp(t: FamilyTrial) {
  const done = t.clients.filter((c) => c.report)
  const ops = done.reduce((sum, c) => sum + c.report!.ops, 0)
  const clientsUs = done.reduce((sum, c) => sum + c.report!.cpuUs, 0)
  if (ops === 0) return null
  const per = (us: number) => Math.round((us / ops) * 10) / 10
  return {
    clients: per(clientsUs),
    server: t.serverCpuUs === undefined ? null : per(t.serverCpuUs),
    total: per(clientsUs + (t.serverCpuUs ?? 0)),
  }
}

/** Ours: how the entries were granted, every client together (e.g. { exclusive: 4000 }). */
function granted(t: FamilyTrial): Record<string, number> | undefined {
  const all: Record<string, number> = {}
  for (const c of t.clients) {
    for (const [kind, n] of Object.entries(c.report?.granted ?? {}))
      all[kind] = (all[kind] ?? 0) + n
  }
  return Object.keys(all).length > 0 ? all : undefined
}

/**
 * Ours: datagrams per operation of the clients' transports. What the clients received is what
 * the coordinator sent (loopback), so its acks alone are about `received` - grants.
 */
function datagramsPerOp(t: FamilyTrial) {
  const done = t.clients.filter((c) => c.report?.datagrams)
  const ops = done.reduce((sum, c) => sum + c.report!.ops, 0)
  if (ops === 0) return undefined
  const per = (f: 'sent' | 'acks' | 'received') =>
    round3(done.reduce((sum, c) => sum + c.report!.datagrams![f], 0) / ops)
  return { clientsSent: per('sent'), clientsAcks: per('acks'), clientsReceived: per('received') }
}

function trialDetail(t: FamilyTrial, kinds: ClientRole['kind'][]) {
  return {
    ...(datagramsPerOp(t) ? { datagramsPerOp: datagramsPerOp(t) } : {}),
    ...Object.fromEntries(kinds.map((k) => [k, roleSummaryRounded(t, k)])),
    cpuUsPerOp: cpuPerOp(t),
    check: t.check,
    ...(granted(t) ? { granted: granted(t) } : {}),
    perClientOps: t.clients.map((c) => c.report?.ops ?? 0),
    ...(t.errors.length > 0 ? { errors: t.errors } : {}),
  }
}

function roleSummaryRounded(t: FamilyTrial, kind: ClientRole['kind']) {
  const r = roleSummary(t, kind)
  return { ...r, rate: round0(r.rate) }
}

/** Median of the ratios of paired samples (same round), skipping pairs whose denominator is 0. */
function pairedRatio(numerators: number[], denominators: number[]): number | undefined {
  const ratios = numerators.flatMap((n, i) => (denominators[i]! > 0 ? [n / denominators[i]!] : []))
  return ratios.length > 0 ? round3(median(ratios)) : undefined
}

const medianOf = (xs: (number | null)[]) => {
  const present = xs.filter((x): x is number => x !== null)
  return present.length > 0 ? round3(median(present)) : null
}

/** One contender at one point over the rounds, for one role. */
function contenderSummary(trials: FamilyTrial[], kind: ClientRole['kind']) {
  const roles = trials.map((t) => roleSummary(t, kind))
  const cpu = trials.map(cpuPerOp)
  const violations = trials.reduce((sum, t) => sum + t.check.violations, 0)
  const measured = round0(median(roles.map((r) => r.rate)))
  return {
    // A lock that broke its rule in any round scores 0: its speed is not a result.
    value: violations > 0 ? 0 : measured,
    correct: violations === 0,
    violations,
    firstViolation: trials.find((t) => t.check.first)?.check.first,
    measured,
    samples: roles.map((r) => round0(r.rate)),
    latencyMs: {
      p50: medianOf(roles.map((r) => r.p50Ms)),
      p99: medianOf(roles.map((r) => r.p99Ms)),
    },
    cpuUsPerOp: {
      clients: medianOf(cpu.map((c) => c?.clients ?? null)),
      server: medianOf(cpu.map((c) => c?.server ?? null)),
      total: medianOf(cpu.map((c) => c?.total ?? null)),
    },
    maxTogether: {
      readers: Math.max(0, ...trials.map((t) => t.check.maxReaders)),
      writers: Math.max(0, ...trials.map((t) => t.check.maxWriters)),
      permits: Math.max(0, ...trials.map((t) => t.check.maxPermits)),
    },
  }
}

export interface FamilyPoint {
  /** The figure's name without the role, e.g. `mutex.rw.centralized.w1r7`. */
  name: string
  roles: ClientRole[]
  limit?: number
  ours: FamilyContender
  /** Options of our lock at this point (the reader policy, a burst), beside its defaults. */
  oursOptions?: OursOptions
  baseline: FamilyContender
  /** Measured in the same rounds and reported beside the baseline (e.g. MultiSemaphore 1 of 3). */
  also?: FamilyContender
  /** The roles reported as figures of their own, with their units. */
  figures: { kind: ClientRole['kind']; suffix: string; unit: string }[]
  setup: string
}

export interface FamilySetup {
  rounds: number
  ops: number
  csUs: number
  retryMs: number
  ttlMs: number
  redisVersion: string
}

/** Short names, for the baseline column of the table. */
const shortNames: Record<FamilyContender, string> = {
  centralized: 'centralized() over UDP',
  'redis-rw': `Redis read-write lock (readers' hash + writer key, Lua; ioredis)`,
  'redis-semaphore': 'redis-semaphore 5.8.0 Semaphore',
  'redis-multi-semaphore': 'redis-semaphore 5.8.0 MultiSemaphore',
}

/** What our transports ran with: SD_UDP_COALESCE=1 turns `coalesce` on (mutex-ours.ts). */
const udpOptions = `reliable, no key${process.env.SD_UDP_COALESCE === '1' ? ', coalesce' : ''}`

export const describedContenders: Record<FamilyContender, string> = {
  centralized: `centralized({ coordinator }) over createUdpTransport (${udpOptions}), coordinator in its own process; readers ask { mode: "shared" }, semaphore clients { permits: { take, of } } (MutexRequest)`,
  'redis-rw':
    'hand-written Redis read-write lock (bench/src/lib/locks-redis-rw.ts): readers in a hash, a writer key claimed first (writer preference), Lua scripts via ioredis defineCommand, retried after retryMs plus up to retryMs of jitter',
  'redis-semaphore':
    'redis-semaphore 5.8.0 Semaphore (ioredis), retryInterval = retryMs, lockTimeout = ttlMs',
  'redis-multi-semaphore':
    'redis-semaphore 5.8.0 MultiSemaphore (ioredis), retryInterval = retryMs, lockTimeout = ttlMs',
}

export function familyResults(
  point: FamilyPoint,
  trials: FamilyTrial[],
  setup: FamilySetup,
): BenchResult[] {
  const of = (c: FamilyContender) => trials.filter((t) => t.contender === c)
  const ours = of(point.ours)
  const base = of(point.baseline)
  const also = point.also ? of(point.also) : []
  const kinds = point.figures.map((f) => f.kind)
  return point.figures.map(({ kind, suffix, unit }) => {
    const mine = contenderSummary(ours, kind)
    const theirs = contenderSummary(base, kind)
    const ratio =
      mine.correct && theirs.correct ? pairedRatio(mine.samples, theirs.samples) : undefined
    return {
      name: `${point.name}.${suffix}`,
      unit,
      value: mine.value,
      baseline: { name: shortNames[point.baseline], value: theirs.value },
      ...(ratio !== undefined ? { ratio } : {}),
      ...(ratio !== undefined &&
        mine.samples.length === theirs.samples.length && {
          rounds: { value: mine.samples, baseline: theirs.samples },
        }),
      params: {
        clients: point.roles.length,
        roles: point.roles,
        ...(point.limit !== undefined ? { permits: point.limit } : {}),
        rounds: setup.rounds,
        opsPerClient: setup.ops,
        criticalSectionUs: setup.csUs,
        redisRetryMs: setup.retryMs,
        redisTtlMs: setup.ttlMs,
        redisVersion: setup.redisVersion,
        ours: { ...mine, contender: describedContenders[point.ours] },
        baseline: { ...theirs, contender: describedContenders[point.baseline] },
        ...(point.also
          ? {
              also: {
                ...contenderSummary(also, kind),
                contender: describedContenders[point.also],
                ratioOursToIt: pairedRatio(mine.samples, contenderSummary(also, kind).samples),
              },
            }
          : {}),
        setup: point.setup,
        timing:
          'each client runs a bounded number of acquire -> critical section (busy wait) -> release from a start shared on the machine monotonic clock; ' +
          "rate: the role's operations / (the last of its clients finished - the start); latency from the acquire request to holding, pooled over the role's clients, median over rounds of each round's percentile; " +
          'cpuUsPerOp: user + system time of the client processes (process.cpuUsage) and of the server side (our coordinator or the redis-server, /proc/<pid>/stat, 10 ms ticks) over the trial, per operation of every client; ' +
          'ratio: median over rounds of ours / baseline in the same round',
        correctness:
          'every critical section [enter, leave] recorded by its client on the shared monotonic clock; a sweep counts the instants where a writer was beside anyone, or more permits were out than the semaphore has; a contender with any violation scores 0 (value), its measured rate is kept in params',
      },
      extra: {
        perRound: ours.map((t, i) => ({
          ours: trialDetail(t, kinds),
          baseline: base[i] && trialDetail(base[i]!, kinds),
          ...(also[i] ? { also: trialDetail(also[i]!, kinds) } : {}),
        })),
      },
    }
  })
}
