/**
 * Lock acquire + release per second and acquire latency with 1, 3 and 8 client processes on
 * loopback: our centralized and Ricart-Agrawala locks over the UDP adapter, against a Redis lock
 * (SET NX PX + compare-and-delete) and redlock on a redis-server the benchmark starts. Without
 * redis-server it prints why and reports nothing.
 *
 * Environment: SD_MUTEX_ROUNDS (5), SD_MUTEX_DURATION_MS (2000), SD_MUTEX_WARMUP_MS (500),
 * SD_MUTEX_CLIENTS ("1,3,8"), SD_MUTEX_REDIS_RETRY_MS (1), SD_MUTEX_CONTENDERS (all six; a subset
 * for exploring, e.g. "centralized,redis-setnx"), SD_MUTEX_BURST (8: the burst of
 * 'centralized-burst', the centralized lock with the Redis lock's policy). 'centralized-codec' is
 * the centralized lock with its REQUEST, GRANT and RELEASE in binary (`centralizedCodec`).
 */
import { cleanupOnExit } from './lib/exit-cleanup.js'
import type { Contender } from './lib/mutex-protocol.js'
import {
  type RedisServer,
  redisUnavailable,
  redisVersion,
  startRedis,
} from './lib/mutex-redis-server.js'
import { type MutexSetup, mutexResults } from './lib/mutex-results.js'
import { MutexRig, type Trial } from './lib/mutex-rig.js'
import { killAllWorkersSync } from './lib/mutex-workers.js'
import type { BenchResult } from './lib/result.js'

function envNumber(name: string, fallback: number, min = 1): number {
  const value = Number(process.env[name] ?? fallback)
  if (!Number.isFinite(value) || value < min)
    throw new RangeError(`${name} must be a number >= ${min}`)
  return value
}

const clientCounts = (process.env.SD_MUTEX_CLIENTS ?? '1,3,8').split(',').map(Number)
if (clientCounts.some((n) => !Number.isInteger(n) || n < 1 || n > 32)) {
  throw new RangeError('SD_MUTEX_CLIENTS must be comma-separated client counts (1..32)')
}
const allContenders: Contender[] = [
  'centralized',
  'centralized-burst',
  'centralized-codec',
  'redis-setnx',
  'ricart-agrawala',
  'redlock',
]
const contenders = (process.env.SD_MUTEX_CONTENDERS?.split(',') ?? allContenders) as Contender[]
if (contenders.some((c) => !allContenders.includes(c))) {
  throw new RangeError(`SD_MUTEX_CONTENDERS must be a comma-separated subset of ${allContenders}`)
}
const log = (line: string) => console.error(`  mutex: ${line}`)

async function measure(rig: MutexRig, setup: MutexSetup): Promise<Trial[]> {
  // One unrecorded trial of every contender at the largest client count first: each worker
  // process then runs JIT-compiled code for every lock, not only for the ones that happened to
  // run before it (the pool of processes is shared by all contenders).
  for (const contender of contenders) {
    const trial = await rig.run(contender, setup.maxClients)
    log(`warm-up, ${setup.maxClients} clients: ${contender} ${Math.round(trial.rate)} acquires/s`)
  }
  const trials: Trial[] = []
  for (let round = 0; round < setup.rounds; round++) {
    // Rotate the client counts and the contenders, so that none always runs first.
    for (let k = 0; k < clientCounts.length; k++) {
      const n = clientCounts[(round + k) % clientCounts.length]!
      for (let c = 0; c < contenders.length; c++) {
        const trial = await rig.run(contenders[(round + k + c) % contenders.length]!, n)
        trials.push(trial)
        const errors = trial.errors.length > 0 ? ` ERRORS: ${trial.errors.join('; ')}` : ''
        log(
          `round ${round + 1}/${setup.rounds}, ${n} clients: ${trial.contender} ${Math.round(trial.rate)} acquires/s${errors}`,
        )
      }
    }
  }
  return trials
}

export default async function mutexBench(): Promise<BenchResult[]> {
  const unavailable = redisUnavailable()
  if (unavailable) {
    log(`skipped: ${unavailable}`)
    return []
  }
  let redis: RedisServer
  try {
    redis = await startRedis()
  } catch (e) {
    log(`skipped: ${String(e)}`)
    return []
  }
  const removeHandlers = cleanupOnExit(() => {
    killAllWorkersSync()
    redis.killSync()
  })
  const setup: MutexSetup = {
    rounds: Math.round(envNumber('SD_MUTEX_ROUNDS', 5)),
    durationMs: envNumber('SD_MUTEX_DURATION_MS', 2000),
    warmupMs: envNumber('SD_MUTEX_WARMUP_MS', 500, 0),
    retryMs: envNumber('SD_MUTEX_REDIS_RETRY_MS', 1, 0),
    ttlMs: 10_000,
    graceMs: 5_000,
    maxClients: Math.max(...clientCounts),
    redisPort: redis.port,
    redisPid: redis.pid,
    clientCounts,
    redisVersion: redisVersion(),
  }
  const rig = new MutexRig(setup)
  try {
    return mutexResults(await measure(rig, setup), setup)
  } finally {
    await rig.close()
    await redis.stop()
    removeHandlers()
  }
}
