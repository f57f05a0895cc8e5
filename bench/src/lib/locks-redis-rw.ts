/**
 * A Redis read-write lock written the usual way, the baseline of `mutex.rw`: a hash of the readers
 * holding it (`<key>:readers`, field = the reader's token) and a writer key (`<key>:writer`, value =
 * the writer's token, with a TTL), each acquire and release one Lua script (atomic on the server),
 * retried after a short pause while the lock is taken. One ioredis connection per client.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { Redis } from 'ioredis'
import type { ClientRole, FamilyTrialSpec } from './locks-protocol.js'
import { byDeadline, type Locker } from './mutex-locker.js'
import { nowMs } from './mutex-protocol.js'
import { connectRedis } from './mutex-redis.js'

// A reader enters unless a writer holds the lock or waits for it (the writer key, see below).
// The hash's TTL is renewed by every reader: a crashed reader's field then lingers while others
// keep reading (per-field expiry needs Redis 7.4's HPEXPIRE); fine for a benchmark, and the
// cost per acquire is the same.
const readAcquire = `
if redis.call('exists', KEYS[1]) == 1 then return 0 end
redis.call('hset', KEYS[2], ARGV[1], 1)
redis.call('pexpire', KEYS[2], ARGV[2])
return 1`

const readRelease = `return redis.call('hdel', KEYS[2], ARGV[1])`

// Writer preference: the writer first claims the writer key (which turns new readers away), then
// holds the lock once the readers present have left. Without the claim, seven readers looping
// would keep the hash non-empty and starve the writer. Returns 1 when held, 0 to retry.
const writeAcquire = `
local w = redis.call('get', KEYS[1])
if not w then
  redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
elseif w ~= ARGV[1] then
  return 0
end
if redis.call('hlen', KEYS[2]) == 0 then return 1 end
return 0`

// Compare-and-delete: only the writer that holds the key removes it.
const writeRelease = `
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0`

type RwScript = (
  writerKey: string,
  readersKey: string,
  token: string,
  ttlMs: number,
) => Promise<number>
type RwRedis = Redis & {
  rwReadAcquire: RwScript
  rwReadRelease: RwScript
  rwWriteAcquire: RwScript
  rwWriteRelease: RwScript
}

export async function redisRwLocker(spec: FamilyTrialSpec, asks: ClientRole): Promise<Locker> {
  if (asks.kind === 'permits') throw new Error('the Redis read-write lock has no permits')
  const redis = await connectRedis(spec.redisPort)
  // defineCommand: sent as EVALSHA, loaded once.
  for (const [name, lua] of [
    ['rwReadAcquire', readAcquire],
    ['rwReadRelease', readRelease],
    ['rwWriteAcquire', writeAcquire],
    ['rwWriteRelease', writeRelease],
  ] as const) {
    redis.defineCommand(name, { numberOfKeys: 2, lua })
  }
  const r = redis as RwRedis
  const writing = asks.kind === 'writer'
  const acquireScript = writing ? r.rwWriteAcquire.bind(r) : r.rwReadAcquire.bind(r)
  const releaseScript = writing ? r.rwWriteRelease.bind(r) : r.rwReadRelease.bind(r)
  const writerKey = `${spec.key}:writer`
  const readersKey = `${spec.key}:readers`
  let uses = 0
  let token = ''
  return {
    port: 0,
    connect() {},
    async acquire(deadline) {
      token = `${spec.id}:${++uses}`
      while (nowMs() < deadline) {
        if ((await acquireScript(writerKey, readersKey, token, spec.ttlMs)) === 1) return
        // A small backoff: retryMs plus up to retryMs of jitter, so the retries of the seven
        // readers do not stay in step.
        if (spec.retryMs > 0) await sleep(spec.retryMs * (1 + Math.random()))
      }
      throw new Error('acquire: still taken at the deadline')
    },
    async release(deadline) {
      await byDeadline(releaseScript(writerKey, readersKey, token, spec.ttlMs), deadline, 'release')
    },
    async close() {
      redis.disconnect()
    },
  }
}
