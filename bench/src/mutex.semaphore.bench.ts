/**
 * Counting semaphore of 3 permits, 8 client processes on loopback, each looping acquire -> a tiny
 * critical section -> release a bounded number of times: our centralized lock (acquire with
 * `permits: { take, of: 3 }`) against redis-semaphore 5.8.0, taking 1 permit (its `Semaphore`, and
 * `MultiSemaphore` beside it) and 2 permits (`MultiSemaphore`). Acquires per second, latency, CPU
 * per operation, and a correctness check of every run (never more than 3 permits out). Two points
 * per take, measured in the same rounds against the same Redis semaphores: ours as `centralized()`
 * comes (permit grants burst PERMITS_BURST = 8 entries: a client that releases and asks for the
 * same permits again in the same turn keeps them, as a Redis client that just released takes them
 * again while the others sleep out their retry), and with strict FIFO turns (`burst: 1`: every
 * release hands the permits on). Without redis-server it prints why and reports nothing.
 * Environment: see lib/locks-bench.ts, SD_LOCKS_SEM_BURST and SD_LOCKS_SEM_POINTS below.
 */
import { runFamilyBench } from './lib/locks-bench.js'
import type { ClientRole } from './lib/locks-protocol.js'
import type { BenchResult } from './lib/result.js'

const taking = (take: number): ClientRole[] =>
  Array.from({ length: 8 }, () => ({ kind: 'permits', take, of: 3 }) as const)

/** The burst of the second points (SD_LOCKS_SEM_BURST; default 1, strict FIFO turns). */
const BURST = Number(process.env.SD_LOCKS_SEM_BURST ?? 1)

const setup = (options: string) =>
  `8 client processes on loopback sharing 3 permits; the lock server (our coordinator, the redis-server) is one more process; ours with ${options}`

/** One point: taking `take` of 3 permits, as `centralized()` comes or with `burst`. */
const point = (take: 1 | 2, burst?: number) => ({
  name: `mutex.semaphore.centralized${burst === undefined ? '' : `-burst${burst}`}.take${take}of3`,
  roles: taking(take),
  limit: 3,
  ours: 'centralized' as const,
  ...(burst === undefined ? {} : { oursOptions: { burst } }),
  baseline: take === 1 ? ('redis-semaphore' as const) : ('redis-multi-semaphore' as const),
  ...(take === 1 && burst === undefined ? { also: 'redis-multi-semaphore' as const } : {}),
  figures: [{ kind: 'permits' as const, suffix: 'c8', unit: 'acquires/s' }],
  setup: setup(
    burst === undefined ? 'its defaults (permit grants burst 8 entries)' : `burst: ${burst}`,
  ),
})

/**
 * Which points run (SD_LOCKS_SEM_POINTS): 'all' (default), 'default' (as `centralized()` comes)
 * or 'burst' (the SD_LOCKS_SEM_BURST points).
 */
const POINTS = process.env.SD_LOCKS_SEM_POINTS ?? 'all'

export default function semaphoreBench(): Promise<BenchResult[]> {
  if (!['all', 'default', 'burst'].includes(POINTS))
    throw new RangeError(`SD_LOCKS_SEM_POINTS must be all, default or burst, got ${POINTS}`)
  const points = [
    ...(POINTS !== 'burst' ? [point(1)] : []),
    ...(POINTS !== 'default' ? [point(1, BURST)] : []),
    ...(POINTS !== 'burst' ? [point(2)] : []),
    ...(POINTS !== 'default' ? [point(2, BURST)] : []),
  ]
  return runFamilyBench('mutex.semaphore', points)
}
