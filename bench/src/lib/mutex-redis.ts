/**
 * The Redis locks in a worker, one ioredis connection each: the single-instance lock users write
 * by hand (`SET key token NX PX ttl`, retried after `retryMs` while taken; released by a
 * compare-and-delete script), and the `redlock` package (4.2.0) on the same single server.
 */
import { createRequire } from 'node:module'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { byDeadline, type Locker } from './mutex-locker.js'
import { nowMs, type TrialSpec } from './mutex-protocol.js'

const compareAndDelete =
  'if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("del",KEYS[1]) else return 0 end'

type CasRedis = Redis & { casDel(key: string, token: string): Promise<number> }

/** One client's connection to the benchmark's redis-server on loopback (every Redis contender). */
export async function connectRedis(port: number | undefined): Promise<Redis> {
  const redis = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 1 })
  await redis.connect()
  return redis
}

async function connect(spec: TrialSpec): Promise<CasRedis> {
  const redis = await connectRedis(spec.redisPort)
  redis.defineCommand('casDel', { numberOfKeys: 1, lua: compareAndDelete })
  return redis as CasRedis
}

export async function setNxLocker(spec: TrialSpec): Promise<Locker> {
  const redis = await connect(spec)
  let uses = 0
  let token = ''
  return {
    port: 0,
    connect() {},
    async acquire(deadline) {
      token = `${spec.id}:${++uses}`
      while (nowMs() < deadline) {
        if ((await redis.set(spec.key, token, 'PX', spec.ttlMs, 'NX')) === 'OK') return
        if (spec.retryMs > 0) await sleep(spec.retryMs)
      }
      throw new Error('acquire: still taken at the deadline')
    },
    async release(deadline) {
      await byDeadline(redis.casDel(spec.key, token), deadline, 'release')
    },
    async close() {
      redis.disconnect()
    },
  }
}

// redlock 4 ships no types: the little of it used here.
interface RedlockLock {
  unlock(): Promise<void>
}
interface RedlockInstance {
  lock(resource: string, ttlMs: number): Promise<RedlockLock>
  on(event: 'clientError', listener: (e: unknown) => void): void
}
type RedlockClass = new (clients: Redis[], options: Record<string, number>) => RedlockInstance
const Redlock = createRequire(import.meta.url)('redlock') as RedlockClass

export async function redlockLocker(spec: TrialSpec): Promise<Locker> {
  const redis = await connect(spec)
  // Retries as often as the hand-written lock (plus up to 1 ms of jitter), a bounded number of times.
  const redlock = new Redlock([redis], {
    retryCount: 1000,
    retryDelay: Math.max(1, spec.retryMs),
    retryJitter: 1,
  })
  redlock.on('clientError', () => {})
  let held: RedlockLock | undefined
  return {
    port: 0,
    connect() {},
    async acquire(deadline) {
      while (nowMs() < deadline) {
        try {
          held = await byDeadline(redlock.lock(spec.key, spec.ttlMs), deadline, 'acquire')
          return
        } catch (e) {
          if ((e as Error).name !== 'LockError') throw e
        }
      }
      throw new Error('acquire: still taken at the deadline')
    },
    async release(deadline) {
      await byDeadline(held!.unlock(), deadline, 'release')
      held = undefined
    },
    async close() {
      redis.disconnect()
    },
  }
}
