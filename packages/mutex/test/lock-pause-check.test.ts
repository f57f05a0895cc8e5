import { describe, expect, it } from 'vitest'
import { createLockManager, createMutex } from '../src/api/index.js'
import { centralized } from '../src/centralized/index.js'
import { LeaseLostError } from '../src/errors.js'
import { simCluster } from './support/sim-locks.js'

/** Nodes a (coordinator) and b; b's lock reads a clock that `pause(ms)` moves, as a pause would. */
function pausable(seed: number, leaseMs: number, renewEveryMs?: number) {
  const cluster = simCluster(['a', 'b'], seed)
  let pausedFor = 0
  const clock = { now: () => cluster.net.now + pausedFor }
  const algorithm = centralized({
    coordinator: 'a',
    leaseMs,
    ...(renewEveryMs === undefined ? {} : { renewEveryMs }),
  })
  const options = { clock, monotonic: clock, algorithm }
  return {
    ...cluster,
    a: { ...cluster.node('a'), algorithm },
    b: { ...cluster.node('b'), ...options },
    pause: (ms: number) => {
      pausedFor = ms
    },
  }
}

/**
 * A process paused past its lease wakes with its lease timer's callback still queued behind the
 * code that resumes: the handle must say "not held" from the clock itself, not wait for that
 * callback. `pause(ms)` moves the lock's monotonic clock as a pause would, with no callback run.
 */
describe('a handle read after a pause', () => {
  it('is not held once the monotonic clock is past the lease, before any timer ran', async () => {
    const { a, b, drive, pause } = pausable(1, 100)
    createMutex(a)
    const lock = createMutex(b)
    let handle: Awaited<ReturnType<typeof lock.acquire>> | undefined
    void lock.acquire().then((h) => {
      handle = h
    })
    expect(await drive(() => handle !== undefined)).toBe(true)
    const h = handle!
    expect(h.held).toBe(true)
    h.assertHeld()
    pause(200)
    expect(h.signal.aborted).toBe(false) // nothing ran yet...
    expect(h.held).toBe(false) // ...but reading it looks at the clock
    expect(h.signal.aborted).toBe(true)
    expect(() => h.assertHeld()).toThrow(LeaseLostError)
    expect((h.signal.reason as LeaseLostError).reason).toBe('expired')
  })

  it('a renewal moves the end: a holder that keeps renewing stays held past the first lease', async () => {
    const { net, a, b, drive } = pausable(2, 100, 30)
    createMutex(a)
    const lock = createMutex(b)
    let handle: Awaited<ReturnType<typeof lock.acquire>> | undefined
    void lock.acquire().then((h) => {
      handle = h
    })
    expect(await drive(() => handle !== undefined)).toBe(true)
    const entered = net.now
    expect(await drive(() => net.now > entered + 400, 5_000)).toBe(true)
    expect(handle!.held).toBe(true)
    handle!.assertHeld()
  })
})

describe("a Web Locks callback's lock read after a pause", () => {
  it('is not held once the monotonic clock is past the lease, before any timer ran', async () => {
    const { a, b, drive, pause } = pausable(1, 100)
    createLockManager(a)
    const manager = createLockManager(b)
    let seen: { before: boolean; after: boolean; aborted: boolean; threw: unknown } | undefined
    void manager
      .request('r', (lock) => {
        const before = lock!.held
        pause(200) // as if stopped past its lease, no callback run yet
        let threw: unknown
        try {
          lock!.assertHeld()
        } catch (error) {
          threw = error
        }
        seen = { before, after: lock!.held, aborted: lock!.signal.aborted, threw }
      })
      .catch(() => {})
    expect(await drive(() => seen !== undefined)).toBe(true)
    expect(seen).toMatchObject({ before: true, after: false, aborted: true })
    expect(seen!.threw).toBeInstanceOf(LeaseLostError)
  })
})
