import { describe, expect, it } from 'vitest'
import { modeSim } from './support/mode-sim.js'

const take = (k: number, of = 3) => ({ permits: { take: k, of } })

describe('centralized: permits (a counting semaphore)', () => {
  it('entries hold together while the permits out stay within the limit', () => {
    const s = modeSim()
    s.acquire(2, 0, take(1))
    s.acquire(3, 1, take(2))
    s.acquire(4, 2, take(1)) // 4 of 3: waits
    s.release(3, 60)
    s.release(2, 100)
    s.release(4, 120)
    const r = s.run()
    expect(r.violations).toEqual([])
    expect(r.of(3, 'acquired')[0]).toMatchObject({ permits: { take: 2, of: 3 } })
    expect(r.of(3, 'acquired')[0]!.t).toBeLessThan(60)
    const t4 = r.of(4, 'acquired')[0]!.t
    expect(t4).toBeGreaterThan(60) // node 3's permits came back first
    expect(t4).toBeLessThan(100) // beside node 2
  })

  it('an exclusive request waits for every permit holder, and permits wait for it', () => {
    const s = modeSim()
    s.acquire(2, 0, take(1))
    s.acquire(3, 5)
    s.acquire(4, 10, take(1))
    s.release(2, 50)
    s.release(3, 100)
    const r = s.run()
    expect(r.violations).toEqual([])
    expect(r.entered).toEqual([2, 3, 4])
  })

  it('a request of another limit is refused (limit-mismatch) and forgotten', () => {
    const s = modeSim()
    s.acquire(2, 0, take(1, 3))
    s.acquire(3, 10, take(1, 4))
    s.acquire(3, 11, take(1, 3)) // the next acquire of node 3 goes on
    s.release(2, 100)
    const r = s.run()
    expect(r.violations).toEqual([])
    expect(r.of(3, 'limit-mismatch')).toEqual([
      expect.objectContaining({ resource: 'default', permits: { take: 1, of: 4 }, limit: 3 }),
    ])
    expect(r.of(3, 'acquired')).toEqual([expect.objectContaining({ permits: { take: 1, of: 3 } })])
    expect(r.of(3, 'acquired')[0]!.t).toBeLessThan(100)
  })

  it('permits must satisfy 1 <= take <= of', () => {
    const s = modeSim()
    s.acquire(2, 0, take(4, 3))
    s.acquire(2, 0, take(0, 3))
    const r = s.run()
    expect(r.of(2, 'ignored')).toHaveLength(2)
    expect(r.of(1, 'requested')).toEqual([])
  })
})

describe('centralized: lock-delay', () => {
  /** Node 2 is paused past its lease; node 3 waits for the resource. */
  function pausedHolder(lockDelayMs?: number) {
    const s = modeSim({ leaseMs: 100, maxDelayMs: 50, ...(lockDelayMs ? { lockDelayMs } : {}) })
    s.acquire(2, 0)
    s.net.at(20, () => s.net.pause(2))
    s.acquire(3, 30)
    s.net.at(600, () => s.net.resume(2))
    s.release(3, 800)
    return s.run()
  }

  it("keeps an expired holder's resource taken for lockDelayMs, and says so in the trace", () => {
    const without = pausedHolder()
    const withDelay = pausedHolder(200)
    expect(without.violations).toEqual([])
    expect(withDelay.violations).toEqual([])
    const expired = withDelay.of(1, 'lease-expired')[0]!
    expect(withDelay.of(1, 'lock-delay')).toEqual([
      expect.objectContaining({ t: expired.t, node: 2, token: expired.token, delayMs: 200 }),
    ])
    expect(withDelay.of(1, 'lock-delay-over')[0]!.t).toBe(expired.t + 200)
    const granted = withDelay.of(1, 'granted').find((g) => g.node === 3)!
    expect(granted.t).toBe(expired.t + 200)
    // Without it, the next grant follows the expiry at once.
    expect(without.of(1, 'granted').find((g) => g.node === 3)!.t).toBe(
      without.of(1, 'lease-expired')[0]!.t,
    )
  })

  it('a released entry has no lock-delay', () => {
    const s = modeSim({ leaseMs: 100, maxDelayMs: 50, lockDelayMs: 200 })
    s.acquire(2, 0)
    s.acquire(3, 1)
    s.release(2, 30)
    const r = s.run()
    expect(r.of(1, 'lock-delay')).toEqual([])
    expect(r.of(3, 'acquired')[0]!.t).toBeLessThan(60)
  })

  it("only the expired holder's permits stay taken", () => {
    const s = modeSim({ leaseMs: 100, maxDelayMs: 50, lockDelayMs: 300 })
    s.acquire(2, 0, take(2))
    s.net.at(20, () => s.net.pause(2))
    s.acquire(3, 30, take(1)) // fits beside the 2 taken: at once
    s.release(3, 60)
    s.acquire(4, 250, take(1)) // after node 2's expiry, inside its lock-delay: 1 permit is free
    s.acquire(3, 260, take(2)) // 2 of the 1 free: waits for the end of the lock-delay
    s.net.at(900, () => s.net.resume(2))
    const r = s.run()
    expect(r.violations).toEqual([])
    const expired = r.of(1, 'lease-expired')[0]!
    expect(expired.t).toBeLessThan(250)
    expect(r.of(4, 'acquired')[0]!.t).toBeLessThan(expired.t + 300)
    expect(r.of(3, 'acquired')[1]!.t).toBeGreaterThanOrEqual(expired.t + 300)
  })
})
