/**
 * A member that lies in well-formed messages (see support/liar.ts): claims of leadership with a
 * huge term, OKs and votes for terms it never saw, elections and coordinators naming nodes that
 * do not exist, and replays of what it heard, in its own name. Over many seeds: no node throws,
 * and `checkElection`, judged over every node, finds no two leaders in one term and no term going
 * back. Where the algorithm trusts a claim (honest peers assumed), the test states what the lie
 * does, as the package README's fault section says: the nodes follow the claimed leader until it
 * falls silent, then elect an honest one above the claimed term.
 */
import type { NodeId, ProtocolFactory } from '@sd/transport'
import { ofType } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { type BullyEvent, type BullyMessage, bully } from '../src/bully/index.js'
import {
  type ChangRobertsEvent,
  type ChangRobertsMessage,
  changRoberts,
} from '../src/chang-roberts/index.js'
import { agreedLeader, checkElection } from '../src/check.js'
import type { ElectionRequest } from '../src/contract.js'
import {
  type MajorityEvent,
  type MajorityMessage,
  majorityElection,
} from '../src/majority/index.js'
import { type RingEvent, type RingMessage, ringElection } from '../src/ring/index.js'
import { type YoyoEvent, type YoyoMessage, yoyo } from '../src/yoyo/index.js'
import { type ElectionRun, runElection } from './support/harness.js'
import { liar } from './support/liar.js'

const HONEST = [1, 2, 3, 4, 5]
/** Not a member: the lies name it as a candidate or a leader. */
const NOBODY = 99
/** How long the liar talks (it stops after 60 messages, 7 ms apart). */
const LIES = { count: 60, everyMs: 7 }
const UNTIL = 4000
/** A term above anything the honest nodes reach in a run: 1 + 6k, owned by the lowest of six. */
const HUGE = 1 + 6 * 1e9

function runWithLiar<Msg, Ev>(
  evil: NodeId,
  honest: ProtocolFactory<Msg, ElectionRequest, Ev>,
  lies: readonly Msg[],
  seed: number,
): ElectionRun<Ev> {
  const factory = (self: NodeId) =>
    self === evil ? liar<Msg, Ev>({ lies, ...LIES }) : honest(self)
  return runElection([...HONEST, evil], factory, {
    seed,
    net: { latency: { kind: 'uniform', min: 1, max: 10 } },
    until: UNTIL,
    plan: (net) => net.request(1 + (seed % HONEST.length), { type: 'start' }),
  })
}

/** Safe over every node's events, and what the honest nodes agree on at the end. */
function judged<Ev>(run: ElectionRun<Ev>) {
  const verdict = checkElection(run.events)
  expect(verdict.violations).toEqual([])
  return agreedLeader(verdict, HONEST)
}

/** The honest nodes whose last view names `leader`. */
function endFollowing<Ev>(run: ElectionRun<Ev>, leader: NodeId): NodeId[] {
  const { final } = checkElection(run.events)
  return HONEST.filter((id) => final.get(id)?.leader === leader)
}

describe('election under a peer that lies in well-formed messages (many seeds)', () => {
  it('bully, liar the worst candidate: its claims are bullied back, never followed', () => {
    const lies: BullyMessage[] = [
      { type: 'coordinator', term: HUGE },
      { type: 'heartbeat', term: HUGE },
      { type: 'ok', term: 5 },
      { type: 'election', term: HUGE },
      { type: 'newer', term: HUGE },
      { type: 'resign', term: 3 },
    ]
    forSeeds(seedList(20), (seed) => {
      const run = runWithLiar<BullyMessage, BullyEvent>(0, bully(), lies, seed)
      expect(ofType(run.events, 'leader').filter((e) => e.event.leader === 0)).toEqual([])
      expect(judged(run)?.leader).toBe(5)
    })
  })

  it('bully, liar the best candidate: its COORDINATOR is followed until it falls silent (known limit)', () => {
    const claimed = 6 * 1e9 + 6 // owned by the best of six
    const lies: BullyMessage[] = [
      { type: 'coordinator', term: claimed },
      { type: 'ok', term: 5 },
      { type: 'election', term: HUGE },
      { type: 'newer', term: HUGE },
      { type: 'resign', term: 3 },
    ]
    forSeeds(seedList(20), (seed) => {
      const run = runWithLiar<BullyMessage, BullyEvent>(9, bully(), lies, seed)
      const followed = ofType(run.events, 'leader').filter((e) => e.event.leader === 9)
      expect(followed.length).toBeGreaterThan(0)
      for (const e of followed) expect(e.event.term).toBe(claimed)
      const end = judged(run)
      expect(end?.leader).toBe(5)
      expect(end!.term).toBeGreaterThan(claimed)
    })
  })

  it('ring: a COORDINATOR naming a node that does not exist is followed until its silence (known limit)', () => {
    const lies: RingMessage[] = [
      {
        type: 'coordinator',
        hop: 1,
        leader: NOBODY,
        term: HUGE,
        members: [1, 2, NOBODY],
        closer: NOBODY,
        hops: 0,
      },
      { type: 'election', hop: 2, list: [NOBODY, 98], out: [], max: HUGE, round: 1 },
      { type: 'leader-is', leader: NOBODY, term: HUGE },
      { type: 'heartbeat', term: HUGE },
      { type: 'resign', term: 2 },
      { type: 'ack', hop: 3 },
    ]
    let fooled = 0
    forSeeds(seedList(20), (seed) => {
      const run = runWithLiar<RingMessage, RingEvent>(0, ringElection(), lies, seed)
      fooled += ofType(run.events, 'leader').filter((e) => e.event.leader === NOBODY).length
      expect(judged(run)?.leader).toBe(5)
    })
    expect(fooled).toBeGreaterThan(0)
  })

  it('Chang-Roberts: an ELECTED naming a node that does not exist is followed until its silence; the silent liar may stall the ring (known limits)', () => {
    const lies: ChangRobertsMessage[] = [
      { type: 'election', candidate: NOBODY, max: HUGE },
      { type: 'elected', leader: NOBODY, term: HUGE },
      { type: 'leader-is', leader: NOBODY, term: HUGE },
      { type: 'heartbeat', term: HUGE },
      { type: 'resign', term: 2 },
    ]
    let fooled = 0
    let stalled = 0
    forSeeds(seedList(20), (seed) => {
      const run = runWithLiar<ChangRobertsMessage, ChangRobertsEvent>(0, changRoberts(), lies, seed)
      fooled += ofType(run.events, 'leader').filter((e) => e.event.leader === NOBODY).length
      // The liar is a member of the ring that forwards nothing: an ELECTION whose next hop it is
      // dies there (the ring has no acknowledgements), so the honest nodes end agreeing on the
      // best of them, or with no leader at all; never still following the node that is not.
      const end = judged(run)
      if (end === undefined) stalled++
      else expect(end.leader).toBe(5)
      expect(endFollowing(run, NOBODY)).toEqual([])
    })
    expect(fooled).toBeGreaterThan(0)
    console.log(
      `Chang-Roberts with a liar: ${stalled} of ${seedList(20).length} runs end with no leader`,
    )
  })

  it('majority of six: a double-voting liar cannot make two leaders in a term; its heartbeats are followed (known limit)', () => {
    const lies: MajorityMessage[] = [
      { type: 'vote-reply', term: 2, granted: true, at: 0, known: 1 },
      { type: 'vote-reply', term: 3, granted: true, at: 50, known: 1 },
      { type: 'pre-vote-reply', term: 2, granted: true, known: 1 },
      { type: 'leader', term: HUGE, at: 0 },
      { type: 'heartbeat', term: 2, at: 0 },
      { type: 'stale', term: HUGE },
      { type: 'resign', term: 2 },
      { type: 'vote', term: HUGE, at: 0 },
      { type: 'ack', term: 2, at: 1e9 },
    ]
    let fooled = 0
    forSeeds(seedList(20), (seed) => {
      const run = runWithLiar<MajorityMessage, MajorityEvent>(0, majorityElection(), lies, seed)
      fooled += ofType(run.events, 'leader').filter((e) => e.event.leader === 0).length
      const end = judged(run)
      expect(HONEST).toContain(end?.leader)
    })
    expect(fooled).toBeGreaterThan(0)
  })

  it('yoyo: one shot, each node believes the first LEADER notice it gets, lie or not (known limit)', () => {
    const all = [...HONEST, 9]
    const lies: YoyoMessage[] = [
      { type: 'leader', leader: NOBODY, term: HUGE },
      { type: 'yo', iteration: 1, value: 0 },
      { type: 'vote', iteration: 1, yes: false, prune: true },
      { type: 'setup' },
    ]
    let fooled = 0
    forSeeds(seedList(20), (seed) => {
      const factory = yoyo({ neighbors: (id) => all.filter((x) => x !== id) })
      const run = runWithLiar<YoyoMessage, YoyoEvent>(9, factory, lies, seed)
      judged(run)
      for (const id of HONEST) {
        const mine = ofType(run.events, 'leader').filter((e) => e.node === id)
        expect(mine.length, `leader events at ${id}`).toBeLessThanOrEqual(1)
        // The honest minimum (1) if its notice came first, else the lie; nothing else.
        for (const e of mine) expect([1, NOBODY]).toContain(e.event.leader)
      }
      fooled += ofType(run.events, 'leader').filter((e) => e.event.leader === NOBODY).length
    })
    expect(fooled).toBeGreaterThan(0)
  })
})
