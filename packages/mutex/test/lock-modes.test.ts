import { createRandom, isSdError } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import type { MutexAlgorithm, MutexHandle } from '../src/api/index.js'
import { centralized } from '../src/centralized/index.js'
import { checkMutualExclusion } from '../src/check.js'
import { lockFeaturesOf } from '../src/contract.js'
import { lamportMutex } from '../src/lamport/index.js'
import { ricartAgrawala } from '../src/ricart-agrawala/index.js'
import { featureCoordinator } from './support/feature-coordinator.js'
import { simLocks, track } from './support/sim-locks.js'

// The lock's modes, permits, ifAvailable, steal, priority and reentrancy, on simulated networks:
// the test coordinator and centralized() honour every feature, ricartAgrawala() shared entries,
// lamportMutex() none.
const ids = ['n1', 'n2', 'n3']
const typeCount = (events: { node: unknown; event: unknown }[], node: string, type: string) =>
  events.filter((e) => e.node === node && (e.event as { type: string }).type === type).length

const withFeatures: Array<[string, () => MutexAlgorithm]> = [
  ['the feature coordinator', () => featureCoordinator('n1')],
  ['centralized()', () => centralized({ coordinator: 'n1' })],
]

describe.each(withFeatures)('lock modes over %s', (_, algorithm) => {
  it('is marked with every feature', () => {
    expect(lockFeaturesOf(algorithm())).toEqual(
      expect.arrayContaining(['ifAvailable', 'permits', 'shared', 'steal']),
    )
  })

  it('shared holders of two nodes hold together; an exclusive one waits for both', async () => {
    const { locks, drive, events } = simLocks(ids, algorithm())
    const a = track(locks[0]!.acquire({ mode: 'shared' }))
    const b = track(locks[1]!.acquire({ mode: 'shared' }))
    expect(await drive(() => a.settled && b.settled)).toBe(true)
    expect(a.value!.mode).toBe('shared')
    expect(b.value!.mode).toBe('shared')
    const x = track(locks[2]!.acquire())
    await drive()
    expect(x.settled).toBe(false)
    await a.value!.release()
    await drive()
    expect(x.settled).toBe(false)
    void b.value!.release()
    expect(await drive(() => x.settled)).toBe(true)
    expect(x.value!.mode).toBe('exclusive')
    expect(x.value!.token).toBeGreaterThan(Math.max(a.value!.token, b.value!.token))
    await x.value!.release()
    expect(checkMutualExclusion(events).violations).toEqual([])
  })

  it("several local shared holders share one protocol entry, released after the last one's release", async () => {
    const { locks, drive, events } = simLocks(ids, algorithm())
    const held = [0, 1, 2].map(() => track(locks[1]!.acquire({ mode: 'shared' })))
    expect(await drive(() => held.every((h) => h.settled))).toBe(true)
    expect(typeCount(events, 'n2', 'acquired')).toBe(1)
    expect(new Set(held.map((h) => h.value!.token)).size).toBe(1)
    await held[0]!.value!.release()
    await held[1]!.value!.release()
    await drive()
    expect(typeCount(events, 'n2', 'released')).toBe(0)
    expect(held[2]!.value!.held).toBe(true)
    const last = track(held[2]!.value!.release())
    expect(await drive(() => last.settled)).toBe(true)
    expect(typeCount(events, 'n2', 'released')).toBe(1)
  })

  it('a local exclusive waiter waits for the local shared holders, and later shared ones wait behind it', async () => {
    const { locks, drive } = simLocks(ids, algorithm())
    const lock = locks[0]!
    const s1 = track(lock.acquire({ mode: 'shared' }))
    await drive(() => s1.settled)
    const x = track(lock.acquire())
    const s2 = track(lock.acquire({ mode: 'shared' }))
    await drive()
    expect(x.settled).toBe(false)
    expect(s2.settled).toBe(false) // it does not jump the exclusive waiter
    void s1.value!.release()
    expect(await drive(() => x.settled)).toBe(true)
    expect(s2.settled).toBe(false)
    void x.value!.release()
    expect(await drive(() => s2.settled)).toBe(true)
    expect(s2.value!.token).toBeGreaterThan(x.value!.token)
  })

  it('permits: two of a limit of 2 hold together, a third waits; the handle says what it took', async () => {
    const { locks, drive, events } = simLocks(ids, algorithm(), 3, {
      permits: { jobs: 2 },
    })
    const take = locks.map((l) => track(l.acquire({ resource: 'jobs', permits: 1 })))
    await drive()
    const granted = take.filter((t) => t.settled)
    expect(granted).toHaveLength(2)
    expect(granted[0]!.value!.permits).toEqual({ take: 1, of: 2 })
    void granted[0]!.value!.release()
    expect(await drive(() => take.every((t) => t.settled))).toBe(true)
    expect(checkMutualExclusion(events).violations).toEqual([])
    expect(
      isSdError(await locks[0]!.acquire({ permits: 1 }).catch((e) => e), 'ERR_INVALID_ARGUMENT'),
    ).toBe(true)
    const tooMany = await locks[0]!.acquire({ resource: 'jobs', permits: 3 }).catch((e) => e)
    expect(isSdError(tooMany, 'ERR_INVALID_ARGUMENT')).toBe(true)
  })

  it('ifAvailable: granted when free, LockUnavailableError when another node holds, at once when this node does', async () => {
    const { locks, drive } = simLocks(ids, algorithm())
    const free = track(locks[1]!.acquire({ ifAvailable: true }))
    expect(await drive(() => free.settled)).toBe(true)
    expect(free.value!.held).toBe(true)
    const remote = track(locks[2]!.acquire({ ifAvailable: true }))
    expect(await drive(() => remote.settled)).toBe(true)
    expect(isSdError(remote.error, 'ERR_LOCK_UNAVAILABLE')).toBe(true)
    const local = track(locks[1]!.acquire({ ifAvailable: true }))
    await Promise.resolve()
    await Promise.resolve()
    expect(isSdError(local.error, 'ERR_LOCK_UNAVAILABLE')).toBe(true)
    await free.value!.release()
    await drive() // the coordinator hears of the release
    const after = track(locks[2]!.acquire({ ifAvailable: true }))
    expect(await drive(() => after.settled)).toBe(true)
    expect(after.value!.held).toBe(true)
  })

  it("steal: the holder's handle is lost (reason 'stolen') and the stealer enters with a newer token", async () => {
    const { locks, drive, events } = simLocks(ids, algorithm())
    const a = track(locks[0]!.acquire())
    await drive(() => a.settled)
    const waiting = track(locks[2]!.acquire())
    const b = track(locks[1]!.acquire({ steal: true }))
    expect(await drive(() => b.settled)).toBe(true)
    const lost = await a.value!.lost
    expect(lost.reason).toBe('stolen')
    expect(a.value!.signal.aborted).toBe(true)
    expect(b.value!.token).toBeGreaterThan(a.value!.token)
    expect(waiting.settled).toBe(false)
    await b.value!.release()
    expect(await drive(() => waiting.settled)).toBe(true)
    expect(checkMutualExclusion(events).violations).toEqual([])
  })

  it("a steal on the holder's own node: its local holder is lost, and the stealer enters anew", async () => {
    const { locks, drive, events } = simLocks(ids, featureCoordinator('n2'))
    const a = track(locks[0]!.acquire())
    await drive(() => a.settled)
    const b = track(locks[0]!.acquire({ steal: true }))
    expect(await drive(() => b.settled)).toBe(true)
    expect((await a.value!.lost).reason).toBe('stolen')
    expect(b.value!.token).toBeGreaterThan(a.value!.token)
    expect(checkMutualExclusion(events).violations).toEqual([])
  })

  it("ifAvailable shared joins this node's shared holders at once", async () => {
    const { locks, drive, events } = simLocks(ids, featureCoordinator('n2'))
    const a = track(locks[0]!.acquire({ mode: 'shared' }))
    await drive(() => a.settled)
    const b = await locks[0]!.acquire({ mode: 'shared', ifAvailable: true })
    expect(b.token).toBe(a.value!.token)
    expect(typeCount(events, 'n1', 'acquired')).toBe(1)
  })

  it('priority orders the waiters of one lock, FIFO among equals', async () => {
    const { locks, drive } = simLocks(ids, algorithm())
    const lock = locks[0]!
    const first = track(lock.acquire())
    await drive(() => first.settled)
    const order: string[] = []
    const wait = (name: string, priority: number) =>
      lock.acquire({ priority }).then(async (h) => {
        order.push(name)
        await h.release()
      })
    const all = track(
      Promise.all([wait('low', 0), wait('high-1', 5), wait('high-2', 5), wait('mid', 1)]),
    )
    void first.value!.release()
    expect(await drive(() => all.settled)).toBe(true)
    expect(order).toEqual(['high-1', 'high-2', 'mid', 'low'])
  })

  it('reentrancy: the owner nests up to the limit with the same token; the outermost release releases', async () => {
    const { locks, drive, events } = simLocks(ids, algorithm(), 1, {
      reentrancy: { limit: 2 },
    })
    const owner = {}
    const outer = track(locks[0]!.acquire({ owner }))
    await drive(() => outer.settled)
    const inner = await locks[0]!.acquire({ owner })
    expect(inner.token).toBe(outer.value!.token)
    const over = await locks[0]!.acquire({ owner }).catch((e) => e)
    expect(isSdError(over, 'ERR_REENTRANCY_LIMIT')).toBe(true)
    await inner.release()
    expect(outer.value!.held).toBe(true)
    const again = await locks[0]!.acquire({ owner }) // the released nested hold frees a place
    const other = track(locks[0]!.acquire({ owner: {} }))
    await drive()
    expect(other.settled).toBe(false)
    void outer.value!.release()
    expect(await drive(() => other.settled)).toBe(true)
    expect(again.held).toBe(false)
    expect(typeCount(events, 'n1', 'released')).toBe(1)
    const { locks: plain } = simLocks(ids, algorithm())
    expect(
      isSdError(await plain[0]!.acquire({ owner }).catch((e) => e), 'ERR_INVALID_ARGUMENT'),
    ).toBe(true)
  })

  it('random shared, exclusive and stealing acquires of three nodes: no violation across all nodes, over seeds', async () => {
    for (let seed = 1; seed <= 40; seed++) {
      const { locks, drive, events, net } = simLocks(ids, featureCoordinator('n2'), seed)
      let done = 0
      const random = createRandom(seed)
      const clients = locks.map(async (lock) => {
        for (let i = 0; i < 6; i++) {
          const r = random.next()
          const h: MutexHandle = await lock.acquire(
            r < 0.5 ? { mode: 'shared' } : r < 0.9 ? {} : { steal: true },
          )
          await new Promise((resolve) => net.at(net.now + random.int(1, 5), () => resolve(0)))
          await h.release()
        }
        done++
      })
      expect(await drive(() => done === 3)).toBe(true)
      await Promise.all(clients)
      const verdict = checkMutualExclusion(events)
      expect(verdict.violations).toEqual([])
      expect(verdict.entries).toBeGreaterThan(0)
    }
  })
})

describe('lock modes over algorithms without the features', () => {
  it('ricartAgrawala() is marked with shared entries (and views), lamportMutex() with views only', () => {
    expect(lockFeaturesOf(ricartAgrawala())).toEqual(['shared', 'views'])
    expect(lockFeaturesOf(lamportMutex())).toEqual(['views'])
  })

  it("shared acquires on lamportMutex() get exclusive entries: nodes take turns, one node's readers share", async () => {
    const { locks, drive, events } = simLocks(ids, lamportMutex())
    const a = track(locks[0]!.acquire({ mode: 'shared' }))
    const b = track(locks[1]!.acquire({ mode: 'shared' }))
    await drive()
    const [first, second] = a.settled ? [a, b] : [b, a]
    expect(first.value!.mode).toBe('exclusive')
    expect(second.settled).toBe(false)
    const lock = a.settled ? locks[0]! : locks[1]!
    const reader = track(lock.acquire({ mode: 'shared' }))
    await drive(() => reader.settled)
    expect(reader.value!.token).toBe(first.value!.token)
    void first.value!.release()
    void reader.value!.release()
    expect(await drive(() => second.settled)).toBe(true)
    await second.value!.release()
    expect(checkMutualExclusion(events).violations).toEqual([])
  })

  it('ifAvailable and steal reject with UnsupportedLockFeatureError on lamportMutex() and ricartAgrawala()', async () => {
    const algorithms: MutexAlgorithm[] = [lamportMutex(), ricartAgrawala()]
    for (const algorithm of algorithms) {
      const { locks } = simLocks(ids, algorithm)
      const a = await locks[0]!.acquire({ ifAvailable: true }).catch((e) => e)
      expect(isSdError(a, 'ERR_UNSUPPORTED_LOCK_FEATURE')).toBe(true)
      expect(a).toHaveProperty('feature', 'ifAvailable')
      const s = await locks[0]!.acquire({ steal: true }).catch((e) => e)
      expect(s).toHaveProperty('feature', 'steal')
    }
  })
})
