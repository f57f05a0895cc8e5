/**
 * The agreed membership on its own, its leader told by hand: joins, a graceful leave and a removal
 * in order; two leaders at once (a stale one) never commit two views of one number; refused
 * messages, requests, options and stored state; snapshots canonical and restorable.
 */
import {
  createRandom,
  InvalidArgumentError,
  type NodeId,
  type Random,
  StoredStateError,
} from '@sd/transport'
import { checkSnapshots, ofType, runInSim, type SnapshotInput } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { checkViews } from '../src/membership/check.js'
import type { MembershipRequest } from '../src/membership/events.js'
import { agreedMembership, type MembershipMessage } from '../src/membership/index.js'
import { resolveOptions } from '../src/membership/options.js'
import { agreedMembershipWith } from '../src/membership/protocol.js'
import { STORE_KEY } from '../src/membership/state.js'

const link = { latency: { kind: 'uniform' as const, min: 1, max: 10 } }
const leaderIs = (leader: NodeId, term: number): MembershipRequest => ({
  type: 'leader',
  leader,
  term,
})

/** A context for driving one node by hand (node 1 of [1, 2]): sends and timers go nowhere. */
function stubCtx(stored: Map<string, unknown>) {
  const emitted: { type: string }[] = []
  const ctx = {
    self: 1,
    peers: [2],
    now: () => 0,
    monotonic: () => 0,
    send: () => {},
    broadcast: () => {},
    setTimer: () => {},
    cancelTimer: () => {},
    random: () => 0,
    emit: (e: { type: string }) => void emitted.push(e),
    storage: {
      get: (key: string) => stored.get(key),
      set: (key: string, v: unknown) => void stored.set(key, v),
      delete: (key: string) => void stored.delete(key),
      keys: () => [...stored.keys()],
    },
  }
  return { ctx: ctx as never, emitted }
}

describe('agreedMembership', () => {
  it('a joiner gets in through any member, a leaver gets out, a dead member is removed: every node installs the same views in order', () => {
    const ids = [1, 2, 3, 4]
    const { events } = runInSim(ids, agreedMembership({ founders: [1, 2, 3], seeds: [2] }), {
      seed: 1,
      net: link,
      until: 3_000,
      plan: (net, group) => {
        for (const id of ids) group.request(id, leaderIs(3, 1))
        net.at(1_000, () => group.request(1, { type: 'leave' }))
        net.at(1_500, () => net.crash(2))
        net.at(1_600, () => group.request(4, { type: 'remove', id: 2 }))
      },
    })
    const views = ofType(events, 'view')
    const at = (node: NodeId) => views.filter((v) => v.node === node).map((v) => v.event.members)
    // The founders start in view 1; 4 joins (through seed 2), 1 leaves, 2 is removed.
    expect(at(3)).toEqual([
      [1, 2, 3],
      [1, 2, 3, 4],
      [2, 3, 4],
      [3, 4],
    ])
    expect(at(4)).toEqual([
      [1, 2, 3, 4],
      [2, 3, 4],
      [3, 4],
    ])
    expect(at(1)).toEqual([
      [1, 2, 3],
      [1, 2, 3, 4],
      [2, 3, 4],
    ])
    expect(views.filter((v) => v.node === 3).map((v) => [v.event.joined, v.event.left])).toEqual([
      [[1, 2, 3], []],
      [[4], []],
      [[], [1]],
      [[], [2]],
    ])
    expect(ofType(events, 'left').map((e) => [e.node, e.event.reason])).toEqual([[1, 'leave']])
    expect(checkViews(events).violations).toEqual([])
  })

  it('a member that missed views fetches them and installs them in order', () => {
    const ids = [1, 2, 3, 4, 5]
    const { events } = runInSim(ids, agreedMembership({ founders: [1, 2, 3] }), {
      seed: 2,
      net: link,
      until: 4_000,
      plan: (net, group) => {
        for (const id of ids) group.request(id, leaderIs(3, 1))
        // 1 is cut off while 4 and 5 join; it catches up after the heal.
        net.at(10, () => net.partition([1], [2, 3, 4, 5]))
        net.at(2_000, () => net.heal())
      },
    })
    const at1 = ofType(events, 'view').filter((v) => v.node === 1)
    expect(at1.map((v) => v.event.view)).toEqual([1, 2, 3])
    expect(at1.at(-1)!.event.members).toEqual([1, 2, 3, 4, 5])
    expect(checkViews(events).violations).toEqual([])
  })

  it('a leader told it leads while not a member says so (to resign its election)', () => {
    const { events } = runInSim([1, 2], agreedMembership({ founders: [2] }), {
      seed: 3,
      net: link,
      until: 1_000,
      plan: (_net, group) => group.request(1, leaderIs(1, 4)),
    })
    expect(ofType(events, 'not-member').map((e) => [e.node, e.event.term])).toEqual([[1, 4]])
  })

  /** Leaders named at random to random nodes (two at once, stale terms too), with changes and partitions. */
  const randomLeaders = (seed: number, quorum?: () => number) => {
    const ids = [1, 2, 3, 4, 5, 6, 7]
    const rnd = createRandom(`membership-leaders/${seed}`)
    const pick = <T>(list: readonly T[]) => list[rnd.int(0, list.length - 1)]!
    const settings = resolveOptions({ founders: [1, 2, 3, 4, 5] })
    const factory = agreedMembershipWith(quorum === undefined ? settings : { ...settings, quorum })
    return runInSim(ids, factory, {
      seed,
      net: link,
      until: 6_000,
      plan: (net, group) => {
        for (let t = 0; t < 5_000; t += rnd.int(20, 200)) {
          net.at(t, () => {
            const r = rnd.next()
            // A leader named to some nodes, in a term that may be below one already used.
            const leader = pick(ids)
            const term = rnd.int(1, 1 + Math.floor(t / 300))
            if (r < 0.5) {
              for (const id of ids) if (rnd.next() < 0.6) group.request(id, leaderIs(leader, term))
            } else if (r < 0.65) group.request(pick(ids), { type: 'remove', id: pick(ids) })
            else if (r < 0.75) group.request(pick(ids), { type: 'leave' })
            else if (r < 0.9) {
              const side = ids.filter(() => rnd.next() < 0.5)
              net.partition(
                side,
                ids.filter((id) => !side.includes(id)),
              )
            } else net.heal()
          })
        }
      },
    }).events
  }

  it('two leaders at once, told at random (stale terms included), never commit two views of one number', () => {
    let commits = 0
    forSeeds(seedList(60), (seed) => {
      const events = randomLeaders(seed)
      expect(checkViews(events).violations).toEqual([])
      commits += ofType(events, 'committed').length
    })
    expect(commits).toBeGreaterThan(seedList(60).length)
    // Committing on the leader's own acknowledgement instead: two views of one number.
    const kinds = new Set(
      seedList(10).flatMap((seed) =>
        checkViews(randomLeaders(seed, () => 1)).violations.map((v) => v.kind),
      ),
    )
    expect([...kinds]).toContain('conflicting-views')
  })

  it('refuses malformed messages and requests with an ignored event, never a throw', () => {
    const bad: unknown[] = [
      null,
      'x',
      { type: 'nope' },
      { type: 'prepare', term: 0 },
      { type: 'promise', term: 1, view: -1 },
      { type: 'accept', term: 1, record: { view: 2, members: 'all', joined: [], left: [] } },
      { type: 'install', record: { view: 0, members: [], joined: [], left: [] } },
      { type: 'change', op: 'steal', id: 2 },
      { type: 'fetch', after: 1.5 },
    ]
    const node = agreedMembership({ founders: [1, 2] })(1)
    const { ctx, emitted } = stubCtx(new Map())
    node.start!(ctx)
    for (const msg of bad) node.onMessage(2, msg as never, ctx)
    node.onRequest!({ type: 'remove', id: 9 }, ctx)
    node.onRequest!({ type: 'whatever' } as unknown as MembershipRequest, ctx)
    const ignored = emitted.filter((e) => e.type === 'ignored')
    expect(ignored.length).toBe(bad.length + 2)
    expect(emitted.filter((e) => e.type === 'view')).toHaveLength(1)
  })

  it('refuses options outside their domain', () => {
    expect(() => agreedMembership({ founders: [] })).toThrow(InvalidArgumentError)
    expect(() => agreedMembership({ founders: [1, 1] })).toThrow(InvalidArgumentError)
    expect(() => agreedMembership({ founders: [1], retryMs: 0 })).toThrow(InvalidArgumentError)
    expect(() => agreedMembership({ founders: [1], seeds: [] })).toThrow(InvalidArgumentError)
  })

  it('stops at start on stored state of another shape (never read as empty: it could accept twice)', () => {
    const damaged = [
      { views: [], promised: null, accepted: null, led: -1, leaving: false, removals: [] },
      {
        views: [
          { view: 1, members: [1], joined: [1], left: [] },
          { view: 3, members: [1], joined: [], left: [] },
        ],
        promised: null,
        accepted: null,
        led: 0,
        leaving: false,
        removals: [],
      },
      { views: [], promised: { term: 1 }, accepted: null, led: 0, leaving: false, removals: [] },
      'x',
    ]
    for (const value of damaged) {
      const node = agreedMembership({ founders: [1, 2] })(1)
      const { ctx } = stubCtx(new Map<string, unknown>([[STORE_KEY, value]]))
      expect(() => node.start!(ctx)).toThrow(StoredStateError)
    }
  })
})

describe('agreedMembership snapshots (checkSnapshots: canonical, complete, restorable)', () => {
  type Input = SnapshotInput<MembershipMessage, MembershipRequest>
  const record = (random: Random) => {
    const view = random.int(2, 3)
    const members = [
      [1, 2, 3],
      [1, 2],
      [1, 2, 3, 4],
    ][random.int(0, 2)]!
    return { view, members, joined: [], left: [] }
  }
  const inputs = (
    random: Random,
    at: { peers: readonly NodeId[]; timers: readonly string[] },
  ): Input => {
    const from = at.peers[random.int(0, at.peers.length - 1)]!
    const term = random.int(1, 3)
    const roll = random.int(0, 13)
    if (roll === 0 && at.timers.length > 0) return { kind: 'timer', key: at.timers[0]! }
    if (roll <= 1) return { kind: 'request', req: leaderIs(random.int(1, 3), term) }
    if (roll === 2) return { kind: 'request', req: { type: 'leader-lost', term } }
    if (roll === 3) return { kind: 'request', req: { type: 'leave' } }
    if (roll === 4) return { kind: 'request', req: { type: 'remove', id: random.int(2, 4) } }
    const messages: MembershipMessage[] = [
      { type: 'join' },
      { type: 'change', op: 'join', id: 4 },
      { type: 'prepare', term },
      { type: 'promise', term, view: 1 },
      { type: 'accept', term, record: record(random) },
      { type: 'accepted', term, view: random.int(2, 3) },
      { type: 'install', record: record(random) },
      { type: 'fetch', after: random.int(0, 2) },
    ]
    return { kind: 'message', from, msg: messages[random.int(0, messages.length - 1)]! }
  }

  it('a founder', () => {
    const report = checkSnapshots(agreedMembership({ founders: [1, 2, 3], retryMs: 10 }), {
      seeds: 12,
      inputs,
    })
    expect(report.restored).toBe(report.states)
    expect(report.comparedPairs).toBeGreaterThan(10)
  })

  it('a joiner', () => {
    const report = checkSnapshots(
      agreedMembershipWith(resolveOptions({ founders: [2, 3], retryMs: 10 })),
      { seeds: 12, inputs },
    )
    expect(report.restored).toBe(report.states)
  })
})
