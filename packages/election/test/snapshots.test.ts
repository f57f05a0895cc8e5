import {
  type Ctx,
  createRandom,
  type JsonValue,
  type NodeId,
  type ProtocolFactory,
} from '@sd/transport'
import { runInSim } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { seedList } from '../../../test-support/seeds.js'
import {
  expectSoundSnapshots,
  recordingSnapshots,
  text,
} from '../../../test-support/snapshot-contract.js'
import { bully } from '../src/bully/index.js'
import { changRoberts } from '../src/chang-roberts/index.js'
import { changRobertsState, snapshotChangRoberts } from '../src/chang-roberts/state.js'
import type { ElectionRequest } from '../src/contract.js'
import { heartbeatSettings } from '../src/detector/heartbeat.js'
import { majorityElection } from '../src/majority/index.js'
import { resolveOptions as majorityOptions } from '../src/majority/options.js'
import { MajorityState, snapshotMajority } from '../src/majority/state.js'
import { ringElection } from '../src/ring/index.js'
import { idOrder } from '../src/ring/order.js'
import { ringState, snapshotRing } from '../src/ring/state.js'
import { randomConnectedGraph, yoyo } from '../src/yoyo/index.js'

/** A context for driving state by hand: timers and sends go nowhere. */
function stubCtx(self: NodeId, peers: NodeId[]): Ctx<never, never> {
  const stored = new Map<string, JsonValue>()
  return {
    self,
    peers,
    now: () => 0,
    monotonic: () => 0,
    send: () => {},
    broadcast: () => {},
    setTimer: () => {},
    cancelTimer: () => {},
    random: () => 0,
    emit: () => {},
    storage: {
      get: (key) => stored.get(key),
      set: (key, value) => void stored.set(key, value),
      delete: (key) => void stored.delete(key),
      keys: () => [...stored.keys()].sort(),
    },
  }
}

const IDS: NodeId[] = [1, 2, 3, 4]
const graph = randomConnectedGraph(IDS, 2, createRandom('snapshots/yoyo').next)

const protocols: [string, ProtocolFactory<unknown, ElectionRequest, unknown>][] = [
  ['ring', ringElection()],
  ['chang-roberts', changRoberts()],
  ['bully', bully()],
  ['bully (trustDetector)', bully({ trustDetector: true })],
  ['majority', majorityElection()],
  ['yoyo', yoyo({ neighbors: graph.neighbors })],
]

describe.each(protocols)('%s snapshots in simulated runs', (name, factory) => {
  /** A seeded run with starts, a resign, a crash and a restart; each node's snapshots. */
  const run = (seed: number) => {
    const random = createRandom(`snapshots/${name}/${seed}`)
    const rec = recordingSnapshots(factory)
    runInSim(IDS, rec.factory, {
      seed,
      net: { latency: { kind: 'uniform', min: 1, max: 15 }, trace: false },
      until: 1_500,
      plan: (net, group) => {
        group.request(IDS[random.int(0, 3)]!, { type: 'start' }, random.int(0, 20))
        if (name === 'yoyo') return // one shot, failure free
        const victim = IDS[random.int(0, 3)]!
        net.at(random.int(300, 600), () => net.crash(victim))
        net.at(random.int(700, 900), () => net.restart(victim))
        group.request(IDS[random.int(0, 3)]!, { type: 'resign' }, random.int(200, 1_200))
        // A hand-over asked of every node (only a leader's counts), so transfers run too.
        const to = IDS[random.int(0, 3)]!
        for (const id of IDS) group.request(id, { type: 'transfer', to }, random.int(1_000, 1_300))
      },
    })
    return rec
  }

  it('are plain, unshared and deterministic after every step, over many seeds', () => {
    // The run moved some node's state (the best bully may lead from its start to the end).
    expectSoundSnapshots(seedList(25), run)
  })
})

/**
 * Every field of a state object changed in turn must change the snapshot: a field added to the
 * state and left out of the snapshot fails here (the table must name every field).
 */
function everyFieldCounts<S extends object>(
  make: () => S,
  snapshot: (s: S) => unknown,
  changes: { [K in keyof S]?: (s: S) => void },
  configuration: (keyof S)[] = [],
) {
  const fields = Object.keys(make()).filter((k) => !configuration.includes(k as keyof S))
  expect(Object.keys(changes).sort()).toEqual(fields.sort())
  const base = text(snapshot(make()))
  for (const [field, change] of Object.entries(changes)) {
    const s = make()
    ;(change as (s: S) => void)(s)
    expect(text(snapshot(s)), `changing ${field}`).not.toBe(base)
  }
}

const heartbeat = heartbeatSettings()
const lead = (watch: { lead: (ctx: Ctx<never, never>, beat: () => void) => void }) =>
  watch.lead(stubCtx(1, [2]), () => {})

describe('ring and Chang-Roberts keep their state in one object, all of it in the snapshot', () => {
  it('ring: every field changes the snapshot, and sets come out sorted', () => {
    everyFieldCounts(() => ringState(1, heartbeat), snapshotRing, {
      order: (s) => {
        s.order = idOrder(1, [2, 3])
      },
      electionMs: (s) => {
        s.electionMs = 5
      },
      current: (s) => {
        s.current = { leader: 2, term: 3 }
      },
      lastTerm: (s) => {
        s.lastTerm = 3
      },
      electing: (s) => {
        s.electing = true
      },
      round: (s) => {
        s.round = 7
      },
      lastClosed: (s) => {
        s.lastClosed = { initiator: 2, round: 7 }
      },
      standAside: (s) => {
        s.standAside = true
      },
      members: (s) => {
        s.members = [1, 2]
      },
      dead: (s) => void s.dead.add(2),
      back: (s) => void s.back.add(2),
      passes: (s) => {
        s.passes.set(1, { to: 2, pass: { type: 'election', list: [1], out: [], max: 0, round: 1 } })
      },
      hopSeq: (s) => {
        s.hopSeq = 1
      },
      watch: (s) => lead(s.watch),
    })
    const a = ringState(1, heartbeat)
    const b = ringState(1, heartbeat)
    for (const id of [3, 'x', 2]) a.dead.add(id)
    for (const id of ['x', 2, 3]) b.dead.add(id)
    a.passes.set(2, { to: 3, pass: { type: 'election', list: [1], out: [], max: 0, round: 1 } })
    a.passes.set(1, { to: 2, pass: { type: 'election', list: [1], out: [], max: 0, round: 1 } })
    b.passes.set(1, { to: 2, pass: { type: 'election', list: [1], out: [], max: 0, round: 1 } })
    b.passes.set(2, { to: 3, pass: { type: 'election', list: [1], out: [], max: 0, round: 1 } })
    expect(text(snapshotRing(a))).toBe(text(snapshotRing(b)))
  })

  it('Chang-Roberts: every field changes the snapshot, and the suspected set comes out sorted', () => {
    everyFieldCounts(() => changRobertsState(1, heartbeat), snapshotChangRoberts, {
      order: (s) => {
        s.order = idOrder(1, [2, 3])
      },
      electionMs: (s) => {
        s.electionMs = 5
      },
      participant: (s) => {
        s.participant = true
      },
      standAside: (s) => {
        s.standAside = true
      },
      current: (s) => {
        s.current = { leader: 2, term: 3 }
      },
      lastTerm: (s) => {
        s.lastTerm = 3
      },
      suspected: (s) => void s.suspected.add(2),
      resigned: (s) => {
        s.resigned = 2
      },
      sent: (s) => {
        s.sent = { to: 2, msg: { type: 'election', candidate: 1, max: 0 } }
      },
      watch: (s) => lead(s.watch),
    })
    const a = changRobertsState(1, heartbeat)
    const b = changRobertsState(1, heartbeat)
    for (const id of [3, 2]) a.suspected.add(id)
    for (const id of [2, 3]) b.suspected.add(id)
    expect(text(snapshotChangRoberts(a))).toBe(text(snapshotChangRoberts(b)))
  })

  it('majority: every field changes the snapshot, and votes and acks come out sorted', () => {
    const settings = majorityOptions()
    const make = () => new MajorityState(1, settings)
    everyFieldCounts(
      make,
      snapshotMajority,
      {
        members: (s) => {
          s.members = [1, 2, 3]
        },
        majority: (s) => {
          s.majority = 2
        },
        role: (s) => {
          s.role = 'candidate'
        },
        leader: (s) => {
          s.leader = 2
        },
        leaderTerm: (s) => {
          s.leaderTerm = 2
        },
        lastLeader: (s) => {
          s.lastLeader = 2
        },
        loyalty: (s) => {
          s.loyalty = { to: undefined, term: 0, until: 10 }
        },
        round: (s) => {
          s.round = { term: 1, votes: new Map(), refusals: new Set() }
        },
        preRound: (s) => {
          s.preRound = { term: 1, grants: new Set(), refusals: new Set() }
        },
        acks: (s) => void s.acks.set(2, 5),
        leaseExpiry: (s) => {
          s.leaseExpiry = 10
        },
        firstBeat: (s) => {
          s.firstBeat = true
        },
        askers: (s) => {
          s.askers = { term: 1, best: 2 }
        },
        standDown: (s) => {
          s.standDown = true
        },
        transfer: (s) => {
          s.transfer = { to: 2, term: 1 }
        },
        ledSince: (s) => {
          s.ledSince = 5
        },
        silent: (s) => void s.silent.add(2),
        watchedSince: (s) => void s.watchedSince.set(2, 7),
        peers: (s) => {
          s.peers = [1, 2]
        },
        view: (s) => {
          s.view = 3
        },
        passive: (s) => {
          s.passive = true
        },
        pending: (s) => {
          s.pending = { view: 4, members: [1, 2] }
        },
        counted: (s) => {
          s.counted = [{ view: 2, members: [1, 2] }]
        },
        viewAcks: (s) => void s.viewAcks.set(2, 3),
        watch: (s) => lead(s.watch),
      },
      ['self', 'settings'],
    )
    const a = make()
    const b = make()
    a.round = {
      term: 1,
      votes: new Map([
        [3, 1],
        [2, 2],
      ]),
      refusals: new Set(['y', 'x']),
    }
    b.round = {
      term: 1,
      votes: new Map([
        [2, 2],
        [3, 1],
      ]),
      refusals: new Set(['x', 'y']),
    }
    for (const id of [3, 2]) a.viewAcks.set(id, id)
    for (const id of [2, 3]) b.viewAcks.set(id, id)
    a.acks.set(3, 1).set(2, 2)
    b.acks.set(2, 2).set(3, 1)
    expect(text(snapshotMajority(a))).toBe(text(snapshotMajority(b)))
  })
})

describe('yoyo snapshots are canonical', () => {
  it('set-up heard from neighbors in either order gives one snapshot, and each changes it', () => {
    const neighbors = (id: NodeId) => (id === 2 ? [1, 3, 4] : [2])
    const after = (order: NodeId[]) => {
      const p = yoyo({ neighbors })(2)
      const ctx = stubCtx(2, [1, 3, 4])
      p.start?.(ctx)
      const snaps = [text(p.snapshot?.())]
      for (const from of order) {
        p.onMessage(from, { type: 'setup' }, ctx)
        snaps.push(text(p.snapshot?.()))
      }
      return snaps
    }
    const one = after([4, 1])
    const other = after([1, 4])
    expect(one[2]).toBe(other[2])
    expect(new Set(one).size).toBe(3)
  })

  it('bully: every handler leaves a snapshot that tells leader, phase and resignation apart', () => {
    const p = bully()(1)
    const ctx = stubCtx(1, [2, 3])
    const seen = new Set<string>()
    p.start?.(ctx)
    seen.add(text(p.snapshot?.()))
    p.onMessage(3, { type: 'coordinator', term: 3 }, ctx)
    seen.add(text(p.snapshot?.()))
    expect(seen.size).toBe(2)
  })
})
