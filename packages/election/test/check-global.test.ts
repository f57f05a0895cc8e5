/**
 * The global election checker on hand-made traces: what it must find (two leaders at once, a
 * leader left on a minority side) and what it must let pass (a clean failover, a pause that ends
 * a leadership, a leader that steps down within the grace).
 */
import type { EmittedEvent, FaultEvent } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { checkElection } from '../src/check.js'

const ids = ['a', 'b', 'c']
const leader = (node: string, t: number, term: number, l = node): EmittedEvent => ({
  node,
  t,
  event: { type: 'leader', leader: l, term },
})
const down = (node: string, t: number, term: number): EmittedEvent[] => [
  { node, t, event: { type: 'stepped-down', term, reason: 'lease' } },
  { node, t, event: { type: 'leader-lost', term } },
]
const lease = (node: string, t: number, term: number, until: number): EmittedEvent => ({
  node,
  t,
  event: { type: 'lease', term, until },
})
const kinds = (events: EmittedEvent[], faults: FaultEvent[], grace?: number) =>
  checkElection(events, faults, {
    members: ids,
    end: 2000,
    ...(grace === undefined ? {} : { minorityGraceMs: grace }),
  }).violations.map((v) => v.kind)

/** a leads term 1 from t = 0, and everybody follows it. */
const start = [leader('a', 0, 1), leader('b', 1, 1, 'a'), leader('c', 1, 1, 'a')]

describe('checkElection across nodes, with faults', () => {
  it('a clean failover passes: the old leader crashed before the new one was elected', () => {
    const events = [...start, leader('b', 700, 2), leader('c', 701, 2, 'b')]
    const faults: FaultEvent[] = [{ t: 100, type: 'crash', node: 'a' }]
    expect(kinds(events, faults, 500)).toEqual([])
  })

  it('finds a cut-off leader still leading when the majority elects another, and for how long', () => {
    const events = [...start, leader('b', 700, 2), leader('c', 701, 2, 'b'), ...down('a', 900, 1)]
    const faults: FaultEvent[] = [{ t: 100, type: 'partition', groups: [['a'], ['b', 'c']] }]
    const v = checkElection(events, faults, { members: ids, minorityGraceMs: 500 }).violations
    expect(v).toEqual([
      { kind: 'two-leaders-at-once', leaders: ['a', 'b'], terms: [1, 2], from: 700, to: 900 },
      { kind: 'leader-in-minority', node: 'a', term: 1, since: 100, t: 600, reachable: ['a'] },
    ])
  })

  it('a cut-off leader that steps down within the grace, before the new election, passes', () => {
    const events = [...start, ...down('a', 550, 1), leader('b', 700, 2), leader('c', 701, 2, 'b')]
    const faults: FaultEvent[] = [{ t: 100, type: 'partition', groups: [['a'], ['b', 'c']] }]
    expect(kinds(events, faults, 500)).toEqual([])
    // With a shorter grace, the same run leads too long on the minority side.
    expect(kinds(events, faults, 300)).toEqual(['leader-in-minority'])
  })

  it('members a partition does not list form one side together', () => {
    const events = [...start]
    // a and b are not listed: together they are two of three, a majority.
    const faults: FaultEvent[] = [{ t: 100, type: 'partition', groups: [['c']] }]
    expect(kinds(events, faults, 500)).toEqual([])
    const alone: FaultEvent[] = [{ t: 100, type: 'partition', groups: [['b', 'c']] }]
    expect(kinds(events, alone, 500)).toEqual(['leader-in-minority'])
  })

  it('crashed and paused members do not count towards the majority of a side', () => {
    const faults: FaultEvent[] = [
      { t: 100, type: 'crash', node: 'b' },
      { t: 200, type: 'pause', node: 'c' },
    ]
    expect(kinds([...start], faults, 500)).toEqual(['leader-in-minority'])
    expect(kinds([...start, ...down('a', 650, 1)], faults, 500)).toEqual([])
  })

  it('a leader reaching a majority within the grace, each member at its own moment, passes', () => {
    // 5 members: a is cut off with c, then with d and e; within any 500 ms it reached a, c, d, e.
    const five = ['a', 'b', 'c', 'd', 'e']
    const faults: FaultEvent[] = [
      {
        t: 100,
        type: 'partition',
        groups: [
          ['a', 'c'],
          ['b', 'd', 'e'],
        ],
      },
      {
        t: 300,
        type: 'partition',
        groups: [
          ['a', 'd', 'e'],
          ['b', 'c'],
        ],
      },
      { t: 400, type: 'crash', node: 'e' },
    ]
    const events = [leader('a', 0, 1), ...down('a', 750, 1)]
    const check = (grace: number) =>
      checkElection(events, faults, { members: five, minorityGraceMs: grace }).violations
    expect(check(500)).toEqual([])
    // From 400 a reaches only a and d: a grace of 300 ends at 700, while a still leads.
    expect(check(300)).toEqual([
      { kind: 'leader-in-minority', node: 'a', term: 1, since: 400, t: 700, reachable: ['a', 'd'] },
    ])
  })

  it('a pause ends a leadership: the new leader elected meanwhile is no overlap', () => {
    const events = [...start, leader('b', 700, 2), leader('c', 701, 2, 'b'), ...down('a', 1000, 1)]
    const faults: FaultEvent[] = [
      { t: 100, type: 'pause', node: 'a' },
      { t: 1000, type: 'resume', node: 'a', backlog: 12 },
    ]
    expect(kinds(events, faults, 500)).toEqual([])
  })

  it('a resumed leader that renews its lease leads again: overlapping the new leader is found', () => {
    const events = [
      ...start,
      leader('b', 700, 2),
      leader('c', 701, 2, 'b'),
      lease('a', 1010, 1, 1400),
      ...down('a', 1100, 1),
    ]
    const faults: FaultEvent[] = [
      { t: 100, type: 'pause', node: 'a' },
      { t: 1000, type: 'resume', node: 'a', backlog: 12 },
    ]
    const v = checkElection(events, faults, { members: ids }).violations
    expect(v).toEqual([
      { kind: 'two-leaders-at-once', leaders: ['b', 'a'], terms: [2, 1], from: 1010, to: 1100 },
    ])
  })

  it('an event and a pause at the same instant: the event came first', () => {
    const events = [leader('a', 100, 1), leader('b', 300, 2)]
    const faults: FaultEvent[] = [{ t: 100, type: 'pause', node: 'a' }]
    expect(kinds(events, faults)).toEqual([])
  })

  it('without faults, only the per-term checks run (as before)', () => {
    const events = [...start, leader('b', 700, 2), leader('c', 701, 2, 'b'), ...down('a', 900, 1)]
    expect(checkElection(events).violations).toEqual([])
    expect(kinds(events, [])).toEqual(['two-leaders-at-once'])
  })

  it('malformed events are skipped, not trusted', () => {
    const events: EmittedEvent[] = [
      ...start,
      { node: 'b', t: 50, event: null },
      { node: 'b', t: 60, event: { type: 'lease', term: 'x' } },
      { node: 'b', t: 70, event: 'leader' },
    ]
    expect(kinds(events, [], 500)).toEqual([])
  })
})
