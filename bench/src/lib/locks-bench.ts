/**
 * What the lock-family benchmarks (`mutex.rw.bench.ts`, `mutex.semaphore.bench.ts`) share: a
 * redis-server of their own, the pool of worker processes, one unrecorded warm-up trial of every
 * contender, then rounds that rotate the points and the contenders, and cleanup (workers and
 * server killed by PID) at the end, on an error, and on SIGINT/SIGTERM.
 *
 * Environment: SD_LOCKS_ROUNDS (5), SD_LOCKS_OPS (operations per client per trial, 1000),
 * SD_LOCKS_CS_US (critical section, µs of busy wait, 20), SD_LOCKS_REDIS_RETRY_MS (1),
 * SD_LOCKS_MAX_TRIAL_MS (a trial's clients give up after this, 60000).
 */
import { cleanupOnExit } from './exit-cleanup.js'
import type { FamilyContender } from './locks-protocol.js'
import { cpuPerOp, type FamilyPoint, type FamilySetup, familyResults } from './locks-results.js'
import { type FamilyTrial, killAllWorkersSync, LocksRig } from './locks-rig.js'
import { redisUnavailable, redisVersion, startRedis } from './mutex-redis-server.js'
import type { BenchResult } from './result.js'

function envNumber(name: string, fallback: number, min = 1): number {
  const value = Number(process.env[name] ?? fallback)
  if (!Number.isFinite(value) || value < min)
    throw new RangeError(`${name} must be a number >= ${min}`)
  return value
}

const contendersOf = (p: FamilyPoint): FamilyContender[] =>
  [p.ours, p.baseline, p.also].filter((c): c is FamilyContender => c !== undefined)

export async function runFamilyBench(label: string, points: FamilyPoint[]): Promise<BenchResult[]> {
  const log = (line: string) => console.error(`  ${label}: ${line}`)
  const unavailable = redisUnavailable()
  if (unavailable) {
    log(`skipped: ${unavailable}`)
    return []
  }
  const redis = await startRedis().catch((e) => {
    log(`skipped: ${String(e)}`)
    return undefined
  })
  if (!redis) return []
  const removeHandlers = cleanupOnExit(() => {
    killAllWorkersSync()
    redis.killSync()
  })
  const setup: FamilySetup = {
    rounds: Math.round(envNumber('SD_LOCKS_ROUNDS', 5)),
    ops: Math.round(envNumber('SD_LOCKS_OPS', 1000)),
    csUs: envNumber('SD_LOCKS_CS_US', 20, 0),
    retryMs: envNumber('SD_LOCKS_REDIS_RETRY_MS', 1, 0),
    ttlMs: 10_000,
    redisVersion: redisVersion(),
  }
  const rig = new LocksRig(
    {
      redisPort: redis.port,
      redisPid: redis.pid,
      ttlMs: setup.ttlMs,
      retryMs: setup.retryMs,
      ops: setup.ops,
      csUs: setup.csUs,
      maxTrialMs: envNumber('SD_LOCKS_MAX_TRIAL_MS', 60_000),
    },
    Math.max(...points.map((p) => p.roles.length)),
  )
  const say = (what: string, t: FamilyTrial) => {
    const ops = t.clients.reduce((sum, c) => sum + (c.report?.ops ?? 0), 0)
    const lastUs = Math.max(...t.clients.map((c) => c.report?.finishedUs ?? t.startUs))
    const rate = lastUs > t.startUs ? Math.round((ops * 1e6) / (lastUs - t.startUs)) : 0
    const broken =
      t.check.violations > 0 ? ` VIOLATIONS: ${t.check.violations} (${t.check.first})` : ''
    const errors = t.errors.length > 0 ? ` ERRORS: ${t.errors.join('; ')}` : ''
    const cpu = cpuPerOp(t)
    const cpuText = cpu ? `, CPU ${cpu.total} µs/op (server ${cpu.server})` : ''
    const sent = t.clients.reduce((sum, c) => sum + (c.report?.datagrams?.sent ?? 0), 0)
    const got = t.clients.reduce((sum, c) => sum + (c.report?.datagrams?.received ?? 0), 0)
    const wire =
      sent > 0 && ops > 0
        ? `, datagrams/op ${(sent / ops).toFixed(2)} up ${(got / ops).toFixed(2)} down`
        : ''
    log(`${what}: ${t.contender} ${rate} ops/s${cpuText}${wire}${broken}${errors}`)
  }
  try {
    // One unrecorded trial of every contender first, so that every worker runs JIT-compiled code
    // for every lock (the pool of processes is shared by all contenders).
    for (const point of points) {
      for (const c of contendersOf(point))
        say(`warm-up ${point.name}`, await rig.run(c, point.roles, point.limit, point.oursOptions))
    }
    const trials = new Map<FamilyPoint, FamilyTrial[]>(points.map((p) => [p, []]))
    for (let round = 0; round < setup.rounds; round++) {
      // Rotate the points and the contenders, so that none always runs first.
      for (let k = 0; k < points.length; k++) {
        const point = points[(round + k) % points.length]!
        const contenders = contendersOf(point)
        for (let c = 0; c < contenders.length; c++) {
          const contender = contenders[(round + c) % contenders.length]!
          const trial = await rig.run(contender, point.roles, point.limit, point.oursOptions)
          trials.get(point)!.push(trial)
          say(`round ${round + 1}/${setup.rounds} ${point.name}`, trial)
        }
      }
    }
    return points.flatMap((p) => familyResults(p, trials.get(p)!, setup))
  } finally {
    await rig.close()
    await redis.stop()
    removeHandlers()
  }
}
