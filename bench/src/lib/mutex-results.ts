/** Turns the mutex benchmark's trials into result figures, keeping every per-round number. */
import { median, percentile } from './measure.js'
import { type Contender, contenderBurst } from './mutex-protocol.js'
import type { RigSettings, Trial } from './mutex-rig.js'
import type { BenchResult } from './result.js'

export interface MutexSetup extends RigSettings {
  rounds: number
  clientCounts: number[]
  redisVersion: string
}

const round0 = Math.round
const round3 = (x: number) => Math.round(x * 1000) / 1000

/** Median of the ratios of paired samples (same round), skipping pairs whose denominator is 0. */
function pairedRatio(numerators: number[], denominators: number[]): number | undefined {
  const ratios = numerators.flatMap((n, i) => (denominators[i]! > 0 ? [n / denominators[i]!] : []))
  return ratios.length > 0 ? round3(median(ratios)) : undefined
}

const unzip = (pairs: readonly (readonly [number, number])[]): [number[], number[]] => [
  pairs.map((p) => p[0]),
  pairs.map((p) => p[1]),
]

const ms = (us: number[], p: number) => (us.length > 0 ? round3(percentile(us, p) / 1000) : null)

const round1 = (x: number) => Math.round(x * 10) / 10

/** Medians over rounds of each part of the CPU time per acquire + release, µs. */
function cpuSummary(trials: Trial[]) {
  const measured = trials.flatMap((t) => (t.cpuUsPerOp ? [t.cpuUsPerOp] : []))
  if (measured.length === 0) return null
  return {
    clients: round1(median(measured.map((c) => c.clients))),
    server: round1(median(measured.map((c) => c.server))),
    total: round1(median(measured.map((c) => c.total))),
  }
}

/** Medians over rounds of each round's rate and p50/p99 acquire latency (ms). */
function summary(trials: Trial[]) {
  const rates = trials.map((t) => t.rate)
  const p50s = trials.map((t) => ms(t.latenciesUs, 50)).filter((x) => x !== null)
  const p99s = trials.map((t) => ms(t.latenciesUs, 99)).filter((x) => x !== null)
  return {
    value: round0(median(rates)),
    latencyMs: {
      p50: p50s.length > 0 ? round3(median(p50s)) : null,
      p99: p99s.length > 0 ? round3(median(p99s)) : null,
    },
    samples: rates.map(round0),
    cpuUsPerOp: cpuSummary(trials),
  }
}

function detail(t: Trial) {
  return {
    rate: round0(t.rate),
    p50Ms: ms(t.latenciesUs, 50),
    p99Ms: ms(t.latenciesUs, 99),
    perClient: t.perClient,
    ...(t.datagrams ? { datagrams: t.datagrams } : {}),
    ...(t.cpuUsPerOp ? { cpuUsPerOp: t.cpuUsPerOp } : {}),
    ...(t.errors.length > 0 ? { errors: t.errors } : {}),
  }
}

/** What our transports ran with: SD_UDP_COALESCE=1 turns `coalesce` on (mutex-ours.ts). */
const udpOptions = `reliable, no key${process.env.SD_UDP_COALESCE === '1' ? ', coalesce' : ''}`

const described: Record<Contender, string> = {
  centralized: `centralized({ coordinator }) over createUdpTransport (${udpOptions}): coordinator in its own process, which never asks for the lock`,
  'centralized-burst': `centralized({ coordinator, burst: ${contenderBurst} }) over createUdpTransport (${udpOptions}): as centralized, and a client that asks again as it leaves keeps its grant for up to ${contenderBurst} entries in a row`,
  'centralized-codec': `centralized({ coordinator }) over createUdpTransport (${udpOptions}, codec: centralizedCodec(jsonCodec)): as centralized, its REQUEST, GRANT and RELEASE in binary`,
  'ricart-agrawala': `ricartAgrawala() over createUdpTransport (${udpOptions}): every client process is a member`,
  'redis-setnx':
    'ioredis: SET key token NX PX ttl, retried after retryMs while taken; release by compare-and-delete (Lua, EVALSHA)',
  redlock: 'redlock 4.2.0 on the same single redis-server, retryDelay = retryMs, retryJitter 1 ms',
}

export function mutexResults(trials: Trial[], setup: MutexSetup): BenchResult[] {
  const of = (c: Contender, n: number) => trials.filter((t) => t.contender === c && t.clients === n)
  const results: BenchResult[] = []
  for (const n of setup.clientCounts) {
    const setNx = of('redis-setnx', n)
    const redlock = of('redlock', n)
    const base = summary(setNx)
    const rl = summary(redlock)
    for (const contender of [
      'centralized',
      'centralized-burst',
      'centralized-codec',
      'ricart-agrawala',
    ] as const) {
      const ours = of(contender, n)
      if (ours.length === 0) continue // left out by SD_MUTEX_CONTENDERS
      const mine = summary(ours)
      const ratio = pairedRatio(mine.samples, base.samples)
      const name =
        contender === 'centralized-burst' ? `centralized-burst${contenderBurst}` : contender
      results.push({
        name: `mutex.${name}.c${n}`,
        unit: 'acquires/s',
        value: mine.value,
        baseline: {
          name: `Redis SET NX PX lock (redis-server ${setup.redisVersion}, ioredis)`,
          value: base.value,
        },
        ratio,
        // Paired only when Redis ran every round too (SD_MUTEX_CONTENDERS may leave it out).
        ...(base.samples.length === mine.samples.length && {
          rounds: { value: mine.samples, baseline: base.samples },
        }),
        params: {
          clients: n,
          rounds: setup.rounds,
          warmupMs: setup.warmupMs,
          durationMs: setup.durationMs,
          latencyMs: { ours: mine.latencyMs, redisSetNx: base.latencyMs },
          samples: { ours: mine.samples, redisSetNx: base.samples },
          cpuUsPerOp: {
            ours: mine.cpuUsPerOp,
            redisSetNx: base.cpuUsPerOp,
            redlock: rl.cpuUsPerOp,
            // Lower is better: Redis's total over ours, paired by round.
            // Only rounds where both sides' CPU could be read are paired.
            ratioRedisToOurs: pairedRatio(
              ...unzip(
                ours.flatMap((t, i) => {
                  const theirs = setNx[i]?.cpuUsPerOp?.total
                  const mine = t.cpuUsPerOp?.total
                  return theirs === undefined || mine === undefined ? [] : [[theirs, mine] as const]
                }),
              ),
            ),
          },
          redlock: {
            value: rl.value,
            latencyMs: rl.latencyMs,
            samples: rl.samples,
            ratioOursToRedlock: pairedRatio(mine.samples, rl.samples),
          },
          ...(contender !== 'ricart-agrawala'
            ? {
                target: 'at least the Redis SET NX lock (ratio >= 1)',
                meetsTarget: (ratio ?? 0) >= 1,
              }
            : {}),
          ours: described[contender],
          baseline: described['redis-setnx'],
          redisRetryMs: setup.retryMs,
          redisTtlMs: setup.ttlMs,
          setup:
            `${n} client processes on loopback, each looping acquire then release at once; every lock's ` +
            'server side (redis-server, our coordinator) is one more process; for Ricart-Agrawala the clients are the whole group',
          timing:
            'acquires completed inside the same window (machine monotonic clock) after a warm-up, all clients together; ' +
            "latency from the acquire request to holding the lock, every client pooled, median over rounds of each round's percentile; " +
            'ratio: median over rounds of ours / Redis SET NX in the same round; ' +
            'cpuUsPerOp: user + system time per acquire + release (warm-up included) of the client processes (process.cpuUsage) ' +
            'and of the server side (our coordinator or the redis-server, /proc/<pid>/stat, 10 ms ticks; none for Ricart-Agrawala), median over rounds',
        },
        extra: {
          perRound: ours.map((t, i) => ({
            ours: detail(t),
            redisSetNx: setNx[i] && detail(setNx[i]!),
            redlock: redlock[i] && detail(redlock[i]!),
          })),
        },
      })
    }
  }
  return results
}
