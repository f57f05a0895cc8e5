import { ofType } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { type RingEvent, ringElection } from '../src/ring/index.js'
import { type ElectionRun, runElection } from './support/harness.js'

type Sent = { type: string; from: unknown; to: unknown; msg: Record<string, unknown> }
const sends = (run: ReturnType<typeof runElection>, type: string) =>
  (run.net.trace as unknown as Sent[]).filter((e) => e.type === 'send' && e.msg.type === type)

const leaderEvents = (run: ElectionRun<RingEvent>) => ofType(run.events, 'leader')

describe('ring election: the textbook example', () => {
  // Tanenbaum & van Steen: processes 0..7, the leader 7 has crashed, 2 and 5 notice at once.
  const run = runElection([0, 1, 2, 3, 4, 5, 6, 7], ringElection(), {
    seed: 1,
    until: 1_000,
    plan: (net) => {
      net.crash(7)
      net.request(2, { type: 'start' })
      net.request(5, { type: 'start' })
    },
  })

  it('both circulations collect every live process, in ring order, skipping 7', () => {
    const lists = (initiator: number) =>
      sends(run, 'election')
        .map((e) => e.msg.list as number[])
        .filter((list) => list[0] === initiator)
    // 6 sends its list to 7 first, gets no ACK, and sends it again to 0.
    expect(lists(2)).toEqual([
      [2],
      [2, 3],
      [2, 3, 4],
      [2, 3, 4, 5],
      [2, 3, 4, 5, 6],
      [2, 3, 4, 5, 6],
      [2, 3, 4, 5, 6, 0],
      [2, 3, 4, 5, 6, 0, 1],
    ])
    expect(lists(5)).toEqual([
      [5],
      [5, 6],
      [5, 6],
      [5, 6, 0],
      [5, 6, 0, 1],
      [5, 6, 0, 1, 2],
      [5, 6, 0, 1, 2, 3],
      [5, 6, 0, 1, 2, 3, 4],
    ])
    const skips = ofType(run.events, 'skipped')
    expect(skips.map((e) => [e.node, e.event.node])).toEqual([
      [6, 7],
      [6, 7],
    ])
  })

  it('both turn into a COORDINATOR for 6 that goes round once; everyone announces 6 once', () => {
    const coordinators = sends(run, 'coordinator').map((e) => e.msg)
    for (const closer of [2, 5]) {
      const own = coordinators.filter((m) => m.closer === closer)
      // Round the live ring back to the closer: 7 is out of the new ring, so no timeout for it.
      expect(own).toHaveLength(7)
      for (const m of own) {
        expect(m).toMatchObject({ leader: 6, members: [0, 1, 2, 3, 4, 5, 6] })
      }
    }
    const leaders = leaderEvents(run)
    expect(leaders.map((e) => e.node).sort()).toEqual([0, 1, 2, 3, 4, 5, 6])
    // The same list and the same highest term: the same leader in the same term, from both.
    for (const e of leaders) expect(e.event).toEqual({ type: 'leader', leader: 6, term: 6 })
    expect(run.violations).toEqual([])
    expect(run.agreed).toEqual({ leader: 6, term: 6 })
  })

  it('costs 2n passes per circulation, each acknowledged, plus the retries to 7', () => {
    // n = 8 members, 7 live: each ELECTION makes 7 passes + 1 to the crashed 7, each COORDINATOR 7.
    expect(run.sentByType.election).toBe(2 * 8)
    expect(run.sentByType.coordinator).toBe(2 * 7)
  })
})

describe('ring election: one initiator', () => {
  it('elects the highest id with n ELECTION and n COORDINATOR passes', () => {
    // Terms are ballots: 8 is at ring position 7 of 8, so its first term is 7.
    const ids = [1, 2, 3, 4, 5, 6, 7, 8]
    const run = runElection(ids, ringElection(), {
      seed: 3,
      until: 300,
      plan: (net) => net.request(3, { type: 'start' }),
    })
    expect(run.agreed).toEqual({ leader: 8, term: 7 })
    expect(run.sentByType.election).toBe(8)
    expect(run.sentByType.coordinator).toBe(8)
    expect(run.sentByType.ack).toBe(16)
  })

  it('a priority beats a higher id', () => {
    const run = runElection([1, 2, 3, 4], ringElection({ priority: (id) => (id === 2 ? 1 : 0) }), {
      seed: 1,
      until: 300,
      plan: (net) => net.request(4, { type: 'start' }),
    })
    expect(run.agreed?.leader).toBe(2)
  })

  it('a single member elects itself', () => {
    const run = runElection([9], ringElection(), {
      seed: 1,
      until: 100,
      plan: (net) => net.request(9, { type: 'start' }),
    })
    expect(run.agreed).toEqual({ leader: 9, term: 1 })
  })
})

describe('ring election: concurrent initiators', () => {
  it('k initiators cost k circulations of each kind, and everyone still announces the leader once', () => {
    for (const n of [8, 32]) {
      const ids = Array.from({ length: n }, (_, i) => i + 1)
      for (const k of [1, 2, n]) {
        const run = runElection(ids, ringElection(), {
          seed: 1,
          until: 10 * n,
          net: { trace: false },
          plan: (net) => {
            for (let i = 0; i < k; i++)
              net.request(ids[Math.floor((i * n) / k)]!, { type: 'start' })
          },
        })
        const { byType } = run.net.stats
        expect([byType.election, byType.coordinator, byType.ack]).toEqual([k * n, k * n, 2 * k * n])
        expect(leaderEvents(run)).toHaveLength(n)
        expect(run.agreed).toEqual({ leader: n, term: n - 1 })
      }
    }
  })
})

describe('ring election: failures and requests', () => {
  const ids = [1, 2, 3, 4, 5]

  it('followers that hear nothing from a crashed leader elect the next one; it recovers and takes over', () => {
    const run = runElection(ids, ringElection(), {
      seed: 2,
      until: 3_000,
      plan: (net) => {
        net.request(1, { type: 'start' })
        net.at(200, () => net.crash(5))
        net.at(1_500, () => net.restart(5))
      },
    })
    expect(run.violations).toEqual([])
    const at = (node: number) => run.events.filter((e) => e.node === node).map((e) => e.event)
    // 5 (ring position 4) leads term 4; its followers lose it, then 4 leads term 8 (4 + the ring
    // size 5, position 3, above 4); 5 comes back, starts an election and leads term 9.
    expect(at(1)).toEqual([
      { type: 'leader', leader: 5, term: 4 },
      { type: 'leader-lost', term: 4 },
      { type: 'leader', leader: 4, term: 8 },
      { type: 'leader', leader: 5, term: 9 },
    ])
    expect(run.agreed).toEqual({ leader: 5, term: 9 })
    expect(run.net.storageOf(5)).toMatchObject({ term: 9 })
  })

  it('a false suspicion re-elects the same leader under a new term: the ELECTION finds it alive', () => {
    for (const suspecter of [2, 4]) {
      // 5's heartbeats to one follower are lost for a while; 4 is the one right before 5.
      const run = runElection(ids, ringElection(), {
        seed: 1,
        until: 1_400,
        plan: (net) => {
          net.request(1, { type: 'start' })
          net.at(300, () => net.setLink(5, suspecter, { loss: 1 }, { oneWay: true }))
          net.at(1_000, () => net.setLink(5, suspecter, { loss: 0 }, { oneWay: true }))
        },
      })
      expect(run.violations).toEqual([])
      const announced = leaderEvents(run).map((e) => e.event)
      expect(new Set(announced.map((e) => JSON.stringify(e)))).toEqual(
        new Set([
          JSON.stringify({ type: 'leader', leader: 5, term: 4 }),
          JSON.stringify({ type: 'leader', leader: 5, term: 9 }),
        ]),
      )
      expect(run.agreed).toEqual({ leader: 5, term: 9 })
    }
  })

  it('a leader that resigns stays out of the next election', () => {
    const run = runElection(ids, ringElection(), {
      seed: 1,
      until: 1_000,
      plan: (net) => {
        net.request(2, { type: 'start' })
        net.request(5, { type: 'resign' }, 100)
      },
    })
    expect(run.violations).toEqual([])
    const lost = run.events.filter((e) => e.event.type === 'leader-lost')
    expect(lost.map((e) => e.node).sort()).toEqual(ids)
    expect(run.agreed?.leader).toBe(4)
    const last = sends(run, 'election').at(-1)?.msg
    expect(last).toMatchObject({ list: [5, 1, 2, 3, 4], out: [5] })
  })

  it('ignores what is not its protocol, and a resign from a follower', () => {
    const run = runElection([1, 2], ringElection(), {
      seed: 1,
      until: 200,
      plan: (net) => {
        net.request(1, { type: 'start' })
        net.request(1, { type: 'resign' }, 50)
        net.at(60, () => net.transport(2).send(1, { type: 'election', hop: 1, list: 'x' }))
      },
    })
    const ignored = ofType(run.events, 'ignored').map((e) => e.event.reason)
    expect(ignored).toEqual(['resign: not the leader', 'malformed election: list'])
    expect(run.agreed).toEqual({ leader: 2, term: 1 })
  })
})
