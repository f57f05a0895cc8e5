import { isSdError, type NodeId } from '@sd/transport'
import { ofType } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { type BullyEvent, bully } from '../src/bully/index.js'
import type { TimedEvent } from '../src/check.js'
import { type ElectionRun, runElection } from './support/harness.js'

const EIGHT = [0, 1, 2, 3, 4, 5, 6, 7]

/** The `leader` / `leader-lost` events of one node, in order, as short strings. */
function leaderEvents(events: readonly TimedEvent<BullyEvent>[], node: NodeId): string[] {
  const out: string[] = []
  for (const e of events) {
    if (e.node !== node) continue
    const ev = e.event
    if (ev.type === 'leader') out.push(`leader ${ev.leader} term ${ev.term}`)
    if (ev.type === 'leader-lost') out.push(`lost term ${ev.term}`)
  }
  return out
}

/** Election messages (no heartbeats) sent in [from, to), as "type from->to", in order. */
function electionMessages(run: ElectionRun, from: number, to: number): string[] {
  const out: string[] = []
  for (const entry of run.net.trace) {
    if (entry.type !== 'send' || entry.t < from || entry.t >= to) continue
    const e = entry as { from: NodeId; to: NodeId; msg: { type: string } }
    if (e.msg.type !== 'heartbeat') out.push(`${e.msg.type} ${e.from}->${e.to}`)
  }
  return out
}

describe('bully: the worked example (seeds 000/002)', () => {
  // 0..7 elect 7; 7 crashes; 4 notices first; 5 and 6 answer OK and hold their own elections; 6
  // hears no OK from 7 and announces; 7 recovers and bullies its way back with a higher term.
  const run = runElection(EIGHT, bully(), {
    seed: 1,
    until: 3000,
    plan: (net) => {
      net.at(1050, () => net.crash(7))
      net.request(4, { type: 'start' }, 1100)
      net.at(2050, () => net.restart(7))
    },
  })

  it('4 sends ELECTION to 5, 6, 7; 5 and 6 answer OK; 6 announces to all', () => {
    expect(electionMessages(run, 1100, 2050)).toEqual([
      'election 4->5',
      'election 4->6',
      'election 4->7',
      // 5 and 6 answer, and hold their own elections
      'ok 5->4',
      'election 5->6',
      'election 5->7',
      'ok 6->4',
      'election 6->7',
      'ok 6->5',
      // 7 never answers: after okTimeoutMs 6 has the best live id
      ...[0, 1, 2, 3, 4, 5, 7].map((to) => `coordinator 6->${to}`),
    ])
  })

  it('the recovered 7 takes over at once, with a higher term', () => {
    expect(electionMessages(run, 2050, 3000)).toEqual(
      [0, 1, 2, 3, 4, 5, 6].map((to) => `coordinator 7->${to}`),
    )
  })

  it('every node sees 7, then 6, then 7 again, with growing terms', () => {
    // Terms are owned by rank: 7 takes 8, 16, ...; 6 takes 7, 15, ...
    const seen = ['leader 7 term 8', 'leader 6 term 15', 'leader 7 term 16']
    for (const node of [0, 1, 2, 3, 5, 6]) expect(leaderEvents(run.events, node)).toEqual(seen)
    expect(leaderEvents(run.events, 4)).toEqual([
      'leader 7 term 8',
      'lost term 8', // the start request: as if it suspected 7
      'leader 6 term 15',
      'leader 7 term 16',
    ])
    expect(leaderEvents(run.events, 7)).toEqual(['leader 7 term 8', 'leader 7 term 16'])
    expect(run.violations).toEqual([])
    expect(run.agreed).toEqual({ leader: 7, term: 16 })
  })

  it('4 hears an OK (from 5, the first) and waits; 6 wins after its OK timeout', () => {
    const of = (node: NodeId) =>
      run.events
        .filter((e) => e.node === node && e.t >= 1100 && e.t < 2050)
        .map((e) => e.event.type)
    expect(of(4)).toEqual(['leader-lost', 'election-started', 'ok', 'leader'])
    expect(of(5)).toEqual(['election-started', 'ok', 'leader'])
    expect(of(6)).toEqual(['election-started', 'leader'])
    const started = run.events.find((e) => e.node === 6 && e.t >= 1100 && e.t < 2050)!
    const six = run.events.find((e) => e.node === 6 && e.event.type === 'leader' && e.t >= 1100)!
    expect(six.t - started.t).toBe(100) // okTimeoutMs, by default the heartbeat interval
  })
})

describe('bully: priorities', () => {
  it('a lower id with a higher priority wins, loses the lead when it crashes, and bullies back', () => {
    const priority = (id: NodeId) => (id === 1 ? 10 : 0)
    const run = runElection([0, 1, 2, 3, 4], bully({ priority }), {
      seed: 3,
      until: 4000,
      plan: (net) => {
        net.at(900, () => net.crash(1))
        net.at(2500, () => net.restart(1))
      },
    })
    expect(run.violations).toEqual([])
    expect(run.agreed?.leader).toBe(1)
    // Terms are owned by rank among the ids, whatever the priorities: 1 takes 2, 7, 12...
    for (const node of [0, 2, 3, 4])
      expect(leaderEvents(run.events, node)).toEqual([
        'leader 1 term 2',
        'lost term 2', // silence: 1 crashed
        'leader 4 term 5',
        'leader 1 term 7',
      ])
  })
})

describe('bully: resign', () => {
  it('the leader steps down, stays out of the next election, and follows the next best', () => {
    const run = runElection([0, 1, 2, 3, 4], bully(), {
      seed: 4,
      until: 2000,
      plan: (net) => net.request(4, { type: 'resign' }, 1000),
    })
    expect(run.violations).toEqual([])
    expect(run.agreed).toEqual({ leader: 3, term: 9 }) // 3 owns 4, 9, ...; 4 had 5
    expect(leaderEvents(run.events, 4)).toEqual([
      'leader 4 term 5',
      'lost term 5',
      'leader 3 term 9',
    ])
    for (const node of [0, 1, 2, 3])
      expect(leaderEvents(run.events, node)).toEqual([
        'leader 4 term 5',
        'lost term 5',
        'leader 3 term 9',
      ])
    expect(
      run.events.filter((e) => e.node === 4 && e.t >= 1000).map((e) => e.event),
    ).toContainEqual({ type: 'ignored', from: 0, reason: 'resigned: stays out of this election' })
  })

  it('a node that does not lead ignores resign', () => {
    const run = runElection([0, 1, 2], bully(), {
      seed: 5,
      until: 500,
      plan: (net) => net.request(1, { type: 'resign' }, 100),
    })
    expect(run.agreed).toEqual({ leader: 2, term: 3 })
    expect(run.events).toContainEqual({
      node: 1,
      t: 100,
      event: { type: 'ignored', from: 1, reason: 'resign from a node that does not lead' },
    })
  })
})

describe('bully: wrong suspicions', () => {
  it('a start request with the leader alive costs messages, not a new term', () => {
    const run = runElection(EIGHT, bully(), {
      seed: 6,
      until: 2000,
      plan: (net) => net.request(2, { type: 'start' }, 1000),
    })
    expect(run.violations).toEqual([])
    expect(run.agreed).toEqual({ leader: 7, term: 8 })
    // 2, then each of 3..6 asks its betters; 7 answers every ELECTION with OK and its COORDINATOR.
    const sent = electionMessages(run, 1000, 2000)
    const count = (type: string) => sent.filter((m) => m.startsWith(`${type} `)).length
    expect(count('election')).toBe(5 + 4 + 3 + 2 + 1)
    expect(count('ok')).toBe(5 + 4 + 3 + 2 + 1)
    expect(count('coordinator')).toBe(5)
  })

  it('a partition elects a second leader in a higher term; after the heal the best bullies back', () => {
    const run = runElection(EIGHT, bully(), {
      seed: 7,
      until: 4000,
      plan: (net) => {
        net.at(1000, () => net.partition([7], [0, 1, 2, 3, 4, 5, 6]))
        net.at(2500, () => net.heal())
      },
    })
    expect(run.violations).toEqual([])
    expect(leaderEvents(run.events, 0)).toEqual([
      'leader 7 term 8',
      'lost term 8',
      'leader 6 term 15',
      'leader 7 term 16',
    ])
    // 7 never noticed the partition: it led term 8 all along, then heard of term 15.
    expect(leaderEvents(run.events, 7)).toEqual([
      'leader 7 term 8',
      'lost term 8',
      'leader 7 term 16',
    ])
    expect(run.agreed).toEqual({ leader: 7, term: 16 })
  })
})

describe('bully: options', () => {
  const invalid = (options: unknown, message: RegExp) => {
    let error: unknown
    try {
      bully(options as Parameters<typeof bully>[0])
    } catch (e) {
      error = e
    }
    expect(isSdError(error, 'ERR_INVALID_ARGUMENT')).toBe(true)
    expect((error as Error).message).toMatch(message)
  }

  it('refuses values outside their domain, saying what to change', () => {
    invalid(null, /options must be an object/)
    invalid({ okTimeoutMs: 0 }, /okTimeoutMs must be a finite number above 0, got 0/)
    invalid({ okTimeoutMs: Number.NaN }, /okTimeoutMs must be a finite number above 0/)
    invalid({ okTimeoutMs: '100' }, /okTimeoutMs must be a finite number above 0, got 100/)
    invalid({ coordinatorTimeoutMs: -1 }, /coordinatorTimeoutMs must be a finite number above 0/)
    invalid(
      { okTimeoutMs: 200, coordinatorTimeoutMs: 200 },
      /coordinatorTimeoutMs \(200\) must be above okTimeoutMs \(200\)/,
    )
    invalid({ heartbeat: { intervalMs: 100, timeoutMs: 150 } }, /at least 2 x intervalMs/)
    invalid({ heartbeat: 5 }, /heartbeat must be an object/)
    invalid({ priority: 3 }, /priority must be a function/)
  })

  it('defaults: OK timeout one heartbeat interval, coordinator timeout three OK timeouts', () => {
    expect(() => bully()).not.toThrow()
    expect(() => bully({ heartbeat: { intervalMs: 20 }, okTimeoutMs: 10 })).not.toThrow()
    // okTimeoutMs follows the heartbeat interval, and the coordinator timeout follows it.
    invalid({ heartbeat: { intervalMs: 50 }, coordinatorTimeoutMs: 50 }, /above okTimeoutMs \(50\)/)
  })

  it('malformed messages and requests are ignored, never thrown', () => {
    const run = runElection([0, 1], bully(), {
      seed: 8,
      until: 300,
      plan: (net) => {
        net.request(0, { type: 'nope' }, 50)
        net.at(60, () => net.transport(1).send(0, { type: 'coordinator', term: -1 }))
        net.at(60, () => net.transport(1).send(0, { type: 'coordinator', term: 1 }))
        net.at(60, () => net.transport(1).send(0, 'hello'))
      },
    })
    const ignored = ofType(run.events, 'ignored')
    expect(ignored.map((e) => e.event.reason)).toEqual([
      'malformed request',
      'malformed coordinator: term',
      'coordinator of term 1, not a term of 1', // 1 owns 2, 4, ...
      'not an object',
    ])
    expect(run.agreed).toEqual({ leader: 1, term: 2 })
  })
})
