// The measures of a mutex (bandwidth, client delay, synchronization delay) for the token ring,
// fault-free with every message taking exactly 1 ms: times read directly in message delays.
import { describe, expect, it } from 'vitest'
import { tokenRing } from '../src/token-ring/index.js'
import { type Ask, type MutexRun, runMutex } from './support/harness.js'

const timesOf = (run: MutexRun, type: string) =>
  run.events.filter((e) => (e.event as { type: string }).type === type).map((e) => e.t)
const sendsBetween = (run: MutexRun, from: number, to: number) =>
  run.net.trace.filter((e) => e.type === 'send' && e.t >= from && e.t < to).length

describe('token ring measures (latency 1, holdMs 0)', () => {
  const ring = tokenRing({ holdMs: 0, ackTimeoutMs: 20 })

  it('heavy load: one pass per entry, 3 messages and 3 message delays of synchronization', () => {
    const ids = [1, 2, 3, 4, 5]
    const asks: Ask[] = ids.flatMap((node) =>
      Array.from({ length: 4 }, () => ({ node, at: 0, hold: 2 })),
    )
    const run = runMutex(ids, ring, asks, { seed: 1, net: { latency: 1 }, until: 400 })
    expect(run.violations).toEqual([])
    expect(run.granted).toBe(20)
    const acquired = timesOf(run, 'acquired')
    const released = timesOf(run, 'released')
    // Every exit hands the token straight to a waiting successor: TOKEN, ACK, COMMIT.
    const sync = acquired.slice(1).map((t, i) => t - released[i]!)
    expect(new Set(sync)).toEqual(new Set([3]))
    const perEntry = sendsBetween(run, acquired[0]!, acquired.at(-1)!) / (acquired.length - 1)
    expect(perEntry).toBe(3)
    // Entries follow the ring: each one's successor enters next.
    const order = run.order.default!.map(Number)
    expect(order.slice(1)).toEqual(order.slice(0, -1).map((id) => (id % 5) + 1))
  })

  it('light load: client delay 0 to 3n message delays (the pass under way, then n - 1 more); the idle ring spends messages between entries', () => {
    const ids = [1, 2, 3, 4, 5]
    // One request every 200 ms, from each node in turn: the token is wherever circulation left it.
    const asks: Ask[] = Array.from({ length: 20 }, (_, k) => ({
      node: ids[(k * 3) % 5]!,
      at: 50 + k * 200 + (k % 7),
      hold: 1,
    }))
    const run = runMutex(ids, ring, asks, { seed: 1, net: { latency: 1 }, until: 50 + 20 * 200 })
    expect(run.violations).toEqual([])
    expect(run.granted).toBe(20)
    const delays = timesOf(run, 'acquired').map((t, k) => t - asks[k]!.at)
    for (const d of delays) {
      expect(d).toBeGreaterThanOrEqual(0)
      expect(d).toBeLessThan(3 * ids.length)
    }
    const perEntry = run.net.stats.sent / run.granted
    // An idle circulation costs 3 messages per 3 ms: about 200 messages per entry at this rate.
    expect(perEntry).toBeGreaterThan(150)
    const mean = delays.reduce((a, b) => a + b, 0) / delays.length
    console.info(
      `token ring light load: client delay mean ${mean.toFixed(2)} (min ${Math.min(...delays)}, max ${Math.max(...delays)}), ${perEntry.toFixed(1)} messages per entry`,
    )
  })
})
