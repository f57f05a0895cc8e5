/**
 * Counting semaphore of 3 permits, 8 client processes on loopback, each looping acquire -> a tiny
 * critical section -> release a bounded number of times: our centralized lock (acquire with
 * `permits: { take, of: 3 }`) against redis-semaphore 5.8.0, taking 1 permit (its `Semaphore`, and
 * `MultiSemaphore` beside it) and 2 permits (`MultiSemaphore`). Acquires per second, latency, CPU
 * per operation, and a correctness check of every run (never more than 3 permits out). Without
 * redis-server it prints why and reports nothing. Environment: see lib/locks-bench.ts.
 */
import { runFamilyBench } from './lib/locks-bench.js'
import type { ClientRole } from './lib/locks-protocol.js'
import type { BenchResult } from './lib/result.js'

const taking = (take: number): ClientRole[] =>
  Array.from({ length: 8 }, () => ({ kind: 'permits', take, of: 3 }) as const)

const setup =
  '8 client processes on loopback sharing 3 permits; the lock server (our coordinator, the redis-server) is one more process'

export default function semaphoreBench(): Promise<BenchResult[]> {
  return runFamilyBench('mutex.semaphore', [
    {
      name: 'mutex.semaphore.centralized.take1of3',
      roles: taking(1),
      limit: 3,
      ours: 'centralized',
      baseline: 'redis-semaphore',
      also: 'redis-multi-semaphore',
      figures: [{ kind: 'permits', suffix: 'c8', unit: 'acquires/s' }],
      setup,
    },
    {
      name: 'mutex.semaphore.centralized.take2of3',
      roles: taking(2),
      limit: 3,
      ours: 'centralized',
      baseline: 'redis-multi-semaphore',
      figures: [{ kind: 'permits', suffix: 'c8', unit: 'acquires/s' }],
      setup,
    },
  ])
}
