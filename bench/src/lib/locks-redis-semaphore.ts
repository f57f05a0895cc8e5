/**
 * The Redis semaphores of the `redis-semaphore` package (5.8.0), the baseline of
 * `mutex.semaphore`: `Semaphore` (one permit of `of` per holder: a sorted set of holders with
 * their acquire times, an acquire script that counts them) and `MultiSemaphore` (`take` permits
 * at once). Both retry after `retryInterval` while the permits are out. One ioredis connection per
 * client, one lock object per client reused for every acquire.
 */
import { MultiSemaphore, Semaphore } from 'redis-semaphore'
import type { ClientRole, FamilyTrialSpec } from './locks-protocol.js'
import { byDeadline, type Locker } from './mutex-locker.js'
import { nowMs } from './mutex-protocol.js'
import { connectRedis } from './mutex-redis.js'

export async function redisSemaphoreLocker(
  spec: FamilyTrialSpec,
  asks: ClientRole,
): Promise<Locker> {
  if (asks.kind !== 'permits') throw new Error('a semaphore client asks for permits')
  if (spec.contender === 'redis-semaphore' && asks.take !== 1)
    throw new Error('Semaphore takes one permit at a time: use MultiSemaphore')
  const redis = await connectRedis(spec.redisPort)
  const options = {
    lockTimeout: spec.ttlMs,
    // The run's deadline bounds each acquire (byDeadline below); this is only a backstop.
    acquireTimeout: 60_000,
    retryInterval: Math.max(1, spec.retryMs),
    refreshInterval: 0, // no refresh timer: a trial is far shorter than the TTL
  }
  const lock =
    spec.contender === 'redis-multi-semaphore'
      ? new MultiSemaphore(redis, spec.key, asks.of, asks.take, options)
      : new Semaphore(redis, spec.key, asks.of, options)
  return {
    port: 0,
    connect() {},
    async acquire(deadline) {
      await byDeadline(lock.acquire(), Math.min(deadline, nowMs() + 60_000), 'acquire')
    },
    async release(deadline) {
      await byDeadline(lock.release(), deadline, 'release')
    },
    async close() {
      redis.disconnect()
    },
  }
}
