// The measures of a mutex (bandwidth, client delay, synchronization delay) for Maekawa, fault-free
// with every message taking exactly 1 ms: times read directly in message delays.
import { describe, expect, it } from 'vitest'
import { gridQuorumRanks, maekawa } from '../src/maekawa/index.js'
import { type Ask, type MutexRun, runMutex } from './support/harness.js'

const timesOf = (run: MutexRun, type: string) =>
  run.events.filter((e) => (e.event as { type: string }).type === type).map((e) => e.t)

describe('maekawa measures (latency 1)', () => {
  it('light load: 3(K - 1) messages per entry and a client delay of 2 message delays', () => {
    for (const n of [2, 4, 5, 9, 16]) {
      const ids = Array.from({ length: n }, (_, i) => i + 1)
      const asks: Ask[] = ids.map((node, k) => ({ node, at: k * 20, hold: 3 }))
      const run = runMutex(ids, maekawa(), asks, { seed: 1, net: { latency: 1 } })
      expect(run.violations).toEqual([])
      expect(run.granted).toBe(n)
      const peers = gridQuorumRanks(n).reduce((sum, q) => sum + q.length - 1, 0)
      expect(run.net.stats.sent).toBe(3 * peers)
      expect(timesOf(run, 'acquired').map((t, k) => t - asks[k]!.at)).toEqual(ids.map(() => 2))
    }
  })

  it('heavy load: synchronization delay of 2 message delays (RELEASE, then LOCKED), 1 when the leaver is the shared member', () => {
    for (const n of [4, 9, 16]) {
      const ids = Array.from({ length: n }, (_, i) => i + 1)
      const asks: Ask[] = ids.flatMap((node) => [0, 0, 0].map(() => ({ node, at: 0, hold: 2 })))
      const run = runMutex(ids, maekawa(), asks, { seed: 1, net: { latency: 1 } })
      expect(run.violations).toEqual([])
      expect(run.granted).toBe(3 * n)
      const acquired = timesOf(run, 'acquired')
      const released = timesOf(run, 'released')
      const sync = acquired.slice(1).map((t, i) => t - released[i]!)
      // Entry after an exit takes one LOCKED from a member the leaver freed: RELEASE and
      // LOCKED, or just LOCKED when the leaver's own vote was the missing one.
      const order = run.order.default!
      const quorums = gridQuorumRanks(n)
      sync.forEach((d, i) => {
        const leaverInQuorum = quorums[Number(order[i + 1]) - 1]!.includes(Number(order[i]) - 1)
        expect(d).toBeGreaterThanOrEqual(leaverInQuorum ? 1 : 2)
      })
      expect(sync).toContain(2)
      const K = gridQuorumRanks(n).reduce((sum, q) => sum + q.length - 1, 0) / n
      const perEntry = run.net.stats.sent / run.granted
      expect(perEntry).toBeGreaterThanOrEqual(3 * K)
      expect(perEntry).toBeLessThanOrEqual(5 * K)
      const mean = sync.reduce((a, b) => a + b, 0) / sync.length
      console.info(
        `maekawa heavy load n=${n}: K-1=${K.toFixed(2)}, ${perEntry.toFixed(2)} messages per entry (${(perEntry / K).toFixed(2)} per quorum peer), sync delay mean ${mean.toFixed(2)} (min ${Math.min(...sync)}, max ${Math.max(...sync)})`,
      )
    }
  })
})
