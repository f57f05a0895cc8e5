import { createRandom, InvalidArgumentError, type NodeId } from '@sd/transport'
import { ofType } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { gridQuorum, gridQuorumRanks, type MaekawaEvent, maekawa } from '../src/maekawa/index.js'
import { type Ask, type MutexRun, randomAsks, runMutex } from './support/harness.js'

const idsOf = (n: number) => Array.from({ length: n }, (_, i) => i + 1)
const eventsOf = <Ev extends { type: string }, T extends Ev['type']>(run: MutexRun<Ev>, type: T) =>
  ofType(run.events, type)

/** Sum over entries of K - 1, K the entering node's quorum size: the messages per quorum peer. */
function quorumPeersPerEntry(run: MutexRun<MaekawaEvent>): number {
  const size = new Map<NodeId, number>()
  for (const e of eventsOf(run, 'quorum')) size.set(e.node, e.event.members.length)
  return eventsOf(run, 'acquired').reduce((sum, e) => sum + size.get(e.node)! - 1, 0)
}

describe('gridQuorum', () => {
  it('gives every two quorums a common member, with about 2 sqrt(n) - 1 members each (n = 1..30)', () => {
    for (let n = 1; n <= 30; n++) {
      const quorums = gridQuorumRanks(n).map((q) => new Set(q))
      const width = Math.ceil(Math.sqrt(n))
      quorums.forEach((q, i) => {
        expect(q.has(i)).toBe(true)
        expect(q.size).toBeLessThanOrEqual(2 * width - 1)
        for (const other of quorums) expect([...q].some((m) => other.has(m))).toBe(true)
      })
    }
  })

  it('lays the members out by id order', () => {
    // 5 members, 3 columns: rows [a b c] [d e]; e is in row 2 and column 2.
    expect(gridQuorum(['e', 'a', 'd', 'c', 'b'], 'e')).toEqual(['b', 'd', 'e'])
    expect(gridQuorum(['e', 'a', 'd', 'c', 'b'], 'c')).toEqual(['a', 'b', 'c'])
    expect(gridQuorum([1], 1)).toEqual([1])
  })
})

describe('maekawa', () => {
  it('never lets two holders in and grants every request under heavy contention (2..9 nodes)', () => {
    forSeeds(seedList(60), (seed) => {
      const rnd = createRandom(seed)
      const ids = idsOf(rnd.int(2, 9))
      const asks = randomAsks(ids, () => rnd.next(), rnd.int(10, 60), rnd.int(10, 200))
      const run = runMutex(ids, maekawa(), asks, {
        seed,
        net: { latency: { kind: 'uniform', min: 1, max: 10 }, fifo: seed % 3 !== 0 },
      })
      expect(run.violations).toEqual([])
      expect(run.granted).toBe(run.asked)
      expect(eventsOf(run, 'ignored')).toEqual([])
      // Bandwidth: at least REQUEST, LOCKED, RELEASE per quorum peer; INQUIRE, FAILED and
      // RELINQUISH keep it within 5 per quorum peer on average.
      const peers = quorumPeersPerEntry(run)
      expect(run.net.stats.sent).toBeGreaterThanOrEqual(3 * peers)
      expect(run.net.stats.sent).toBeLessThanOrEqual(5 * peers)
    })
  })

  it('resolves the deadlock of crossed votes through INQUIRE and RELINQUISH', () => {
    // Four nodes ask at once: with plain Maekawa, votes split between them can deadlock.
    let relinquished = 0
    forSeeds(seedList(60), (seed) => {
      const ids = idsOf(4)
      const asks: Ask[] = ids.map((node) => ({ node, at: 0, hold: 1 }))
      const run = runMutex(ids, maekawa(), asks, {
        seed,
        net: { latency: { kind: 'uniform', min: 1, max: 20 }, fifo: false },
      })
      expect(run.violations).toEqual([])
      expect(run.granted).toBe(4)
      relinquished += eventsOf(run, 'relinquished').length
    })
    expect(relinquished).toBeGreaterThan(0) // the runs did need the deadlock-free form
  })

  it('ignores malformed and unexpected messages, reporting them', () => {
    const run = runMutex([1, 2, 3], maekawa(), [{ node: 1, at: 5, hold: 1 }], {
      seed: 1,
      faults: (net) => {
        net.at(1, () => net.transport(2).send(1, { type: 'locked', time: 1, req: 1, by: 1 }))
        net.at(1, () => net.transport(2).send(1, { type: 'gimme' }))
        net.at(1, () =>
          net.transport(2).send(1, { type: 'release', time: 1, req: 7, by: 2, fence: 3 }),
        )
        net.at(1, () => net.transport(2).send(1, { type: 'request', time: 1, req: 1, by: 3 }))
      },
    })
    expect(run.violations).toEqual([])
    expect(run.granted).toBe(1)
    const reasons = eventsOf(run, 'ignored').map((e) => e.event.reason)
    expect(reasons).toEqual([
      'malformed locked: fence',
      'unknown message type "gimme"',
      'release of no vote of mine',
      'request on behalf of another',
    ])
  })

  it('validates its options', () => {
    expect(() => maekawa({ quorum: 3 } as never)).toThrow(InvalidArgumentError)
    expect(() => maekawa(null as never)).toThrow(InvalidArgumentError)
  })
})
