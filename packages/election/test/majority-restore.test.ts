/**
 * The majority election's restore(): checkSnapshots restores every state it reaches into a fresh
 * instance (not started) and runs it beside the original. The inputs reach pre-votes, rounds,
 * leading (with its lease and heartbeats), hand-overs and views, pending and installed; the test
 * counts those states among the ones restored, so that a domain too small to reach them fails.
 * With phi accrual there is no restore (its history cannot be given back to the watch).
 */
import {
  InvalidArgumentError,
  type NodeId,
  type Protocol,
  type ProtocolFactory,
  type Random,
} from '@sd/transport'
import { checkSnapshots, type SnapshotInput } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import type { ElectionRequest } from '../src/contract.js'
import { majorityElection } from '../src/majority/index.js'
import type { MajorityMessage } from '../src/majority/messages.js'
import type { MajorityOptions } from '../src/majority/options.js'

type Input = SnapshotInput<MajorityMessage, ElectionRequest>
type At = { self: NodeId; peers: readonly NodeId[]; timers: readonly string[] }

const pick = <T>(random: Random, xs: readonly T[]): T => xs[random.int(0, xs.length - 1)]!

/** Views of the node, its peers and one joiner (4): with and without the node checked. */
const GROUPS: NodeId[][] = [
  [1, 2, 3],
  [1, 2],
  [1, 2, 3, 4],
  [2, 3, 4],
]

/** Requests now and then (views, hand-overs, start, resign), timers often, else a peer's word. */
function inputs(random: Random, at: At): Input {
  const roll = random.int(0, 11)
  // A leader (its lease runs) is asked to hand over now and then.
  if (roll === 11 && at.timers.includes('majority:lease'))
    return { kind: 'request', req: { type: 'transfer', to: pick(random, at.peers) } }
  if (roll <= 1) {
    const view = random.int(1, 3)
    const members = pick(random, GROUPS)
    const reqs = [
      { type: 'start' },
      { type: 'resign' },
      { type: 'transfer', to: pick(random, at.peers) },
      { type: 'view', view, members },
      { type: 'view-accepted', view, members },
    ]
    return { kind: 'request', req: pick(random, reqs) as ElectionRequest }
  }
  if (roll <= 6 && at.timers.length > 0) return { kind: 'timer', key: pick(random, at.timers) }
  // The harness's monotonic clock reads 0: `at` 0 is what the node's own requests carried.
  const term = random.int(1, 3)
  const known = random.int(0, 3)
  const granted = random.int(0, 3) > 0
  const from = pick(random, at.peers)
  const view = random.int(1, 3)
  // A pre-vote or a round under way hears its answers often, so that rounds are won too.
  if (random.int(0, 1) === 0 && at.timers.includes('majority:pre-round'))
    return { kind: 'message', from, msg: { type: 'pre-vote-reply', term, granted, known } }
  if (random.int(0, 1) === 0 && at.timers.includes('majority:round'))
    return { kind: 'message', from, msg: { type: 'vote-reply', term, granted, at: 0, known } }
  const msgs: MajorityMessage[] = [
    { type: 'pre-vote', term, view },
    { type: 'pre-vote-reply', term, granted, known },
    { type: 'vote', term, at: 0 },
    { type: 'vote-reply', term, granted, at: 0, known },
    { type: 'leader', term, at: 0 },
    { type: 'heartbeat', term, at: 0 },
    { type: 'ack', term, at: 0, view },
    { type: 'stale', term },
    { type: 'resign', term },
    { type: 'transfer', term, to: at.self, known },
  ]
  return { kind: 'message', from, msg: pick(random, msgs) }
}

/** What the states reached were: counted from the snapshots checkSnapshots takes. */
interface Seen {
  leading: number
  preVoting: number
  candidate: number
  transferring: number
  inView: number
  pending: number
}

/** The factory, with every snapshot it gives counted in `seen` (restore() is passed on as is). */
function counting(
  factory: ProtocolFactory<MajorityMessage, ElectionRequest, unknown>,
  seen: Seen,
): ProtocolFactory<MajorityMessage, ElectionRequest, unknown> {
  return (self) => {
    const p = factory(self) as Protocol<MajorityMessage, ElectionRequest, unknown>
    const snapshot = () => {
      const s = p.snapshot!() as {
        role: string
        preRound: unknown
        transfer: unknown
        view: unknown
        pending: unknown
      }
      if (s.role === 'leader') seen.leading++
      if (s.role === 'candidate') seen.candidate++
      if (s.preRound !== null) seen.preVoting++
      if (s.transfer !== null) seen.transferring++
      if (s.view !== null) seen.inView++
      if (s.pending !== null) seen.pending++
      return s
    }
    return { ...p, snapshot } as Protocol<MajorityMessage, ElectionRequest, unknown>
  }
}

/** The options, and the kinds of state their runs must have restored. */
const CASES: Array<[string, MajorityOptions, (keyof Seen)[]]> = [
  ['default (PreVote)', {}, ['leading', 'preVoting', 'candidate', 'inView', 'pending']],
  // Without PreVote a node leads in fewer steps, so the walks reach hand-overs too.
  ['without PreVote', { preVote: false }, ['leading', 'candidate', 'transferring', 'inView']],
  ['awaiting its view', { awaitView: true }, ['leading', 'preVoting', 'inView', 'pending']],
]

describe('majority election: restore() (checkSnapshots restores every state reached)', () => {
  it.each(CASES)('%s', (_name, options, kinds) => {
    const seen: Seen = {
      leading: 0,
      preVoting: 0,
      candidate: 0,
      transferring: 0,
      inView: 0,
      pending: 0,
    }
    const report = checkSnapshots(counting(majorityElection(options), seen), {
      seeds: 8,
      inputs,
    })
    expect(report.restored).toBe(report.states)
    expect(report.restored).toBeGreaterThan(500)
    expect(report.comparedPairs).toBeGreaterThan(0)
    // Each kind of state is among the ones restored (and among those it ran on to).
    for (const kind of kinds) expect(seen[kind], kind).toBeGreaterThan(0)
  })

  it('no restore() with phi accrual; a snapshot of another shape is refused', () => {
    const phi = majorityElection({ heartbeat: { detector: { phi: {} } } })
    expect(phi(1).restore).toBeUndefined()
    const node = majorityElection()(1)
    expect(node.restore).toBeTypeOf('function')
    expect(() => node.restore?.(7)).toThrow(InvalidArgumentError)
    expect(() => node.restore?.([])).toThrow(/restore\(\) takes the object snapshot\(\) gave/)
    expect(() => node.restore?.({ role: 'leader' })).toThrow(/without members, majority/)
    const snapshot = majorityElection()(1).snapshot?.() as Record<string, unknown>
    expect(() => node.restore?.({ ...snapshot, watch: { leading: false, phi: {} } })).toThrow(
      /phi accrual watch is not supported/,
    )
  })
})
