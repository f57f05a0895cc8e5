/**
 * Every protocol's `snapshot()` (the contract of `Protocol.snapshot`): plain data, canonical, the
 * same for the same inputs, read without changing the node, and moved by a change of state.
 */
import { createRandom, type NodeId, type ProtocolFactory, type Random } from '@sd/transport'
import { checkSnapshots, type SnapshotInput } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { centralized } from '../src/centralized/index.js'
import type { MutexRequest } from '../src/contract.js'
import { lamportMutex } from '../src/lamport/index.js'
import { maekawa } from '../src/maekawa/index.js'
import { quorumMutex } from '../src/quorum/index.js'
import { ricartAgrawala } from '../src/ricart-agrawala/index.js'
import { tokenRing } from '../src/token-ring/index.js'
import { handDriven } from './support/hand-driven.js'
import { JITTER, namedIds, randomAsks, runMutex } from './support/harness.js'
import { notPlain, observed, sortedJson, type Taken } from './support/snapshots.js'

const ids = namedIds(4)
type Factory = ProtocolFactory<never, MutexRequest, { type: string }>
const CASES: Array<{
  name: string
  factory: () => Factory
  fifo?: boolean
  queries?: boolean
  /** p4 crashes; view 1 (p1 to p3) comes to each of the others at its own time. */
  views?: boolean
  /** Some snapshot of the runs shows this (in its JSON): the case reaches the state it is for. */
  reaches?: string
}> = [
  { name: 'centralized', factory: () => centralized() },
  {
    name: 'centralized (deny, leases)',
    factory: () => centralized({ whenBusy: 'deny', leaseMs: 40, maxDelayMs: 20 }),
  },
  {
    name: 'centralized (shared and exclusive, leases, lock-delay)',
    factory: () =>
      withModes(centralized({ leaseMs: 40, maxDelayMs: 20, lockDelayMs: 10 }), (n) =>
        n % 3 === 0 ? {} : { mode: 'shared' },
      ),
  },
  {
    name: 'centralized (permits, readers-first, ifAvailable)',
    factory: () =>
      withModes(centralized({ readers: 'readers-first' }), (n) => ({
        permits: { take: 1 + (n % 2), of: 3 },
        ...(n % 4 === 0 ? { ifAvailable: true } : {}),
      })),
  },
  {
    // Kept permit grants (option `burst`): a node's next acquire of the same permits re-enters.
    name: 'centralized (permits, burst 3, leases)',
    factory: () =>
      withModes(centralized({ burst: 3, leaseMs: 40, maxDelayMs: 20 }), (n) => ({
        permits: { take: n % 3 === 2 ? 2 : 1, of: 3 },
      })),
    reaches: '"state":"kept","held":{"permits":',
  },
  {
    name: 'centralized (queries beside the acquires)',
    factory: () => withQueries(centralized({ leaseMs: 40, maxDelayMs: 20 })),
    queries: true,
  },
  { name: 'centralized (a view change around a crash)', factory: () => centralized(), views: true },
  {
    name: 'centralized (leases, a view change around a crash)',
    factory: () => centralized({ leaseMs: 40, maxDelayMs: 20 }),
    views: true,
  },
  { name: 'token ring', factory: () => tokenRing() },
  { name: 'ricart-agrawala', factory: () => ricartAgrawala() },
  { name: 'lamport', factory: () => lamportMutex(), fifo: true },
  { name: 'maekawa', factory: () => maekawa() },
  { name: 'maekawa (a view change around a crash)', factory: () => maekawa(), views: true },
  { name: 'token ring (a view change around a crash)', factory: () => tokenRing(), views: true },
  { name: 'quorum', factory: () => quorumMutex({ coordinators: ids }) },
]

/** `factory` whose nth local acquire (per node) also asks for `modes(n)`. */
function withModes(
  factory: ReturnType<typeof centralized>,
  modes: (n: number) => Omit<Extract<MutexRequest, { type: 'acquire' }>, 'type'>,
): Factory {
  return ((self: NodeId) => {
    const inner = factory(self)
    let n = 0
    return {
      ...inner,
      onRequest(req, ctx) {
        inner.onRequest?.(req.type === 'acquire' ? { ...req, ...modes(n++) } : req, ctx)
      },
    } satisfies typeof inner
  }) as unknown as Factory
}

/** `factory` whose every other local acquire also asks the coordinator for its view (a query). */
function withQueries(factory: ReturnType<typeof centralized>): Factory {
  return ((self: NodeId) => {
    const inner = factory(self)
    let n = 0
    return {
      ...inner,
      onRequest(req, ctx) {
        inner.onRequest?.(req, ctx)
        if (req.type === 'acquire' && n++ % 2 === 0)
          inner.onRequest?.({ type: 'query', id: n }, ctx)
      },
    } satisfies typeof inner
  }) as unknown as Factory
}

/** A run of `seed` with every node's snapshot after every step, and the run's events. */
function observedRun(c: (typeof CASES)[number], seed: number, observe = true) {
  const rnd = createRandom(`snapshots-${seed}`)
  const asks = randomAsks(ids, () => rnd.next(), 8, 150, 10)
  const log: Taken[] = []
  const factory = observe ? observed(c.factory(), log) : c.factory()
  // The token ring circulates for ever: a bound on virtual time ends every run.
  const run = runMutex(ids, factory, asks, {
    seed,
    net: { ...JITTER, fifo: c.fifo ?? false },
    until: 600,
    faults: c.views
      ? (sim) => {
          sim.at(30, () => sim.crash('p4'))
          const next = { type: 'view', view: 1, members: ids.slice(0, 3) }
          for (const id of ids.slice(0, 3)) sim.at(40 + rnd.int(0, 60), () => sim.request(id, next))
        }
      : undefined,
  })
  return { log, events: run.events, violations: run.violations, granted: run.granted }
}

describe('snapshot() of every mutex protocol (many seeds)', () => {
  for (const c of CASES) {
    it(`${c.name}: plain data, sorted keys change nothing, same inputs give the same snapshots`, () => {
      let steps = 0
      let reached = false
      forSeeds(seedList(25), (seed) => {
        const first = observedRun(c, seed)
        expect(first.violations).toEqual([])
        expect(first.granted).toBeGreaterThan(0)
        if (c.queries === true)
          expect(first.events.map((e) => e.event.type)).toContain('lock-state')
        for (const { node, step, snapshot } of first.log) {
          const why = notPlain(snapshot)
          if (why !== undefined) throw new Error(`${String(node)} after ${step}: ${why}`)
          expect(JSON.parse(JSON.stringify(snapshot))).toEqual(snapshot)
          expect(JSON.parse(sortedJson(snapshot))).toEqual(snapshot)
        }
        steps += first.log.length
        if (c.reaches !== undefined)
          reached ||= first.log.some((l) => JSON.stringify(l.snapshot).includes(c.reaches!))
        // A second run from fresh instances with the same inputs: the same states, step by step.
        const second = observedRun(c, seed)
        expect(second.log.length).toBe(first.log.length)
        for (let i = 0; i < first.log.length; i++) {
          const a = first.log[i]!
          const b = second.log[i]!
          if (sortedJson(a) !== sortedJson(b))
            throw new Error(`step ${i} (${String(a.node)} after ${a.step}) differs between runs`)
        }
      })
      expect(steps).toBeGreaterThan(100)
      if (c.reaches !== undefined) expect(reached).toBe(true)
    })

    it(`${c.name}: taking snapshots changes nothing the nodes do`, () => {
      forSeeds(seedList(10), (seed) => {
        expect(observedRun(c, seed).events).toEqual(observedRun(c, seed, false).events)
      })
    })
  }
})

describe('snapshot() is canonical: the same state reached in another order', () => {
  it('ricart-agrawala: OKs from two peers in either order give the same snapshot', () => {
    const node = (order: NodeId[]) => {
      const n = handDriven(ricartAgrawala()('a'), 'a', ['b', 'c', 'd'])
      n.protocol.onRequest?.({ type: 'acquire' }, n.ctx) // request at time 1; waits for 3 OKs
      for (const from of order)
        n.protocol.onMessage(from, { type: 'ok', resource: 'default', time: 1, req: 1 }, n.ctx)
      return n.protocol.snapshot?.()
    }
    const bc = node(['b', 'c'])
    expect(bc).toEqual(node(['c', 'b']))
    expect(JSON.stringify(bc)).toBe(JSON.stringify(node(['c', 'b'])))
  })

  it('ricart-agrawala: deferred peers keep their order, since their OKs are stamped in it', () => {
    const node = (order: NodeId[]) => {
      const n = handDriven(ricartAgrawala()('a'), 'a', ['b', 'c'])
      n.protocol.onRequest?.({ type: 'acquire' }, n.ctx)
      n.protocol.onMessage('b', { type: 'ok', resource: 'default', time: 1, req: 1 }, n.ctx)
      n.protocol.onMessage('c', { type: 'ok', resource: 'default', time: 1, req: 1 }, n.ctx)
      for (const from of order) // held: both are deferred
        n.protocol.onMessage(from, { type: 'request', resource: 'default', time: 1 }, n.ctx)
      const snapshot = n.protocol.snapshot?.()
      n.sent.length = 0
      n.protocol.onRequest?.({ type: 'release' }, n.ctx)
      return { snapshot, oks: [...n.sent].sort(([a], [b]) => String(a).localeCompare(String(b))) }
    }
    const bc = node(['b', 'c'])
    const cb = node(['c', 'b'])
    expect(bc.snapshot).not.toEqual(cb.snapshot)
    // The two states do lead to different steps: b and c get each other's stamps.
    expect(bc.oks).not.toEqual(cb.oks)
  })

  it('lamport: two peers queued in either arrival order give the same snapshot', () => {
    const node = (order: NodeId[]) => {
      const n = handDriven(lamportMutex()('a'), 'a', ['b', 'c'])
      for (const from of order)
        n.protocol.onMessage(from, { type: 'request', resource: 'default', time: 1 }, n.ctx)
      return n.protocol.snapshot?.()
    }
    expect(JSON.stringify(node(['b', 'c']))).toBe(JSON.stringify(node(['c', 'b'])))
  })

  it('maekawa: votes from the quorum in either order give the same snapshot', () => {
    const members = namedIds(9) // a 3 x 3 grid: p1's quorum is p1, p2, p3, p4, p7
    const node = (order: NodeId[]) => {
      const n = handDriven(maekawa()('p1'), 'p1', members.slice(1))
      n.protocol.onRequest?.({ type: 'acquire' }, n.ctx) // p1 votes for itself at once
      const req = 1
      for (const from of order)
        n.protocol.onMessage(from, { type: 'locked', req, by: 'p1', fence: 0, time: 5 }, n.ctx)
      return n.protocol.snapshot?.()
    }
    const forward = node(['p2', 'p3', 'p4'])
    expect(JSON.stringify(forward)).toBe(JSON.stringify(node(['p4', 'p3', 'p2'])))
    expect(forward).not.toEqual(node(['p2', 'p3'])) // one vote fewer is another state
  })

  it('maekawa: SYNCs of a view and requests waiting for them, in either order, give the same snapshot', () => {
    const members = namedIds(4)
    const node = (order: NodeId[]) => {
      const n = handDriven(maekawa()('p1'), 'p1', members.slice(1))
      n.protocol.onRequest?.({ type: 'view', view: 1, members }, n.ctx)
      for (const from of order) {
        n.protocol.onMessage(from, { type: 'request', req: 3, by: from, view: 1, time: 2 }, n.ctx)
        if (from !== 'p4')
          n.protocol.onMessage(from, { type: 'sync', view: 1, hold: 0, time: 1 }, n.ctx)
      }
      return n.protocol.snapshot?.()
    }
    const forward = node(['p2', 'p3', 'p4'])
    expect(JSON.stringify(forward)).toBe(JSON.stringify(node(['p4', 'p3', 'p2'])))
    expect(forward).not.toEqual(node(['p2', 'p3'])) // one request fewer is another state
  })

  it('quorum: grants from coordinators in either order give the same snapshot', () => {
    const coordinators = namedIds(5)
    const node = (order: NodeId[]) => {
      const n = handDriven(quorumMutex({ coordinators })('p1'), 'p1', coordinators.slice(1))
      n.protocol.onRequest?.({ type: 'acquire' }, n.ctx)
      const [, ask] = n.sent.find(([to]) => to === 'p2')!
      const { session, attempt } = ask as { session: number; attempt: number }
      for (const from of order)
        n.protocol.onMessage(
          from,
          { type: 'grant', resource: 'default', session, attempt, counter: 1 },
          n.ctx,
        )
      return n.protocol.snapshot?.()
    }
    expect(JSON.stringify(node(['p2', 'p3']))).toBe(JSON.stringify(node(['p3', 'p2'])))
  })

  it('centralized: requests for two resources in either order give the same coordinator snapshot', () => {
    const node = (order: Array<[NodeId, string]>) => {
      const n = handDriven(centralized()('a'), 'a', ['b', 'c'])
      for (const [from, resource] of order)
        n.protocol.onMessage(from, { type: 'request', term: 0, resource, seq: 1, at: 0 }, n.ctx)
      return n.protocol.snapshot?.()
    }
    const xy = node([
      ['b', 'x'],
      ['c', 'y'],
    ])
    expect(JSON.stringify(xy)).toBe(
      JSON.stringify(
        node([
          ['c', 'y'],
          ['b', 'x'],
        ]),
      ),
    )
  })
})

describe('centralized: shared holders granted in either order give the same snapshot', () => {
  it('holders are kept by node, not by arrival', () => {
    const node = (order: NodeId[]) => {
      const n = handDriven(centralized()('a'), 'a', ['b', 'c'])
      for (const from of order) {
        const msg = { type: 'request', term: 0, resource: 'x', seq: 1, at: 0, mode: 'shared' }
        n.protocol.onMessage(from, msg, n.ctx)
      }
      return n.protocol.snapshot?.()
    }
    const bc = node(['b', 'c'])
    // The tokens follow the arrival order, so compare without them.
    const strip = (v: unknown) => JSON.stringify(v).replace(/"token":\d+/g, '')
    expect(strip(bc)).toBe(strip(node(['c', 'b'])))
    expect(strip(bc)).not.toBe(strip(node(['b'])))
  })
})

describe('snapshot() follows the state', () => {
  it('token ring: the holder snapshot changes when it enters and again when it leaves', () => {
    const n = handDriven(tokenRing()('a'), 'a', ['b', 'c'])
    const idle = n.protocol.snapshot?.() // 'a', the lowest id, holds the new token
    expect(idle).toMatchObject({ token: { generation: 0, count: 0 }, inSection: false })
    n.protocol.onRequest?.({ type: 'acquire' }, n.ctx)
    const inside = n.protocol.snapshot?.()
    expect(inside).not.toEqual(idle)
    expect(inside).toMatchObject({ token: { count: 1 }, inSection: true })
    expect(n.protocol.snapshot?.()).toEqual(inside) // reading it changed nothing
    n.protocol.onRequest?.({ type: 'release' }, n.ctx)
    const passed = n.protocol.snapshot?.()
    expect(passed).not.toEqual(inside)
    expect(passed).toMatchObject({ token: null, inSection: false, pending: { to: 'b' } })
  })
})

describe('restore() (checkSnapshots: a restored instance goes on as the one snapshotted)', () => {
  type Input = SnapshotInput<never, MutexRequest>
  /** Local asks and releases, and peers' messages of `types` with small times. */
  const inputs =
    (types: Record<string, readonly string[]>) =>
    (random: Random, at: { peers: readonly NodeId[] }): Input => {
      const roll = random.int(0, 9)
      if (roll < 2) return { kind: 'request', req: { type: roll === 0 ? 'acquire' : 'release' } }
      const names = Object.keys(types)
      const type = names[random.int(0, names.length - 1)]!
      const msg: Record<string, unknown> = { type, resource: 'default' }
      // Small times: OKs for the node's own request (its time is 1 or 2) come often enough that
      // it enters and leaves, where the order of the peers it deferred shows.
      for (const field of types[type]!) msg[field] = random.int(1, 2)
      const from = at.peers[random.int(0, at.peers.length - 1)]!
      return { kind: 'message', from, msg: msg as never }
    }

  it('ricart-agrawala', () => {
    const types = { request: ['time'], ok: ['time', 'req'], deny: ['time', 'req'] }
    const report = checkSnapshots(ricartAgrawala() as Factory, { seeds: 20, inputs: inputs(types) })
    expect(report.restored).toBe(report.states)
    expect(report.restored).toBeGreaterThan(100)
  })

  it('ricart-agrawala with shared and exclusive acquires and requests', () => {
    const types = { request: ['time'], ok: ['time', 'req'], deny: ['time', 'req'] }
    const plain = inputs(types)
    // Half the acquires and peer requests shared: the mode of a turn, of the queued acquires.
    const moded = (random: Random, at: { peers: readonly NodeId[] }): Input => {
      const input = plain(random, at)
      const shared = random.int(0, 1) === 1
      if (input.kind === 'request' && input.req.type === 'acquire' && shared)
        return { kind: 'request', req: { ...input.req, mode: 'shared' } }
      if (input.kind === 'message' && (input.msg as { type: string }).type === 'request' && shared)
        return { ...input, msg: { ...(input.msg as object), mode: 'shared' } as never }
      return input
    }
    const report = checkSnapshots(ricartAgrawala() as Factory, { seeds: 20, inputs: moded })
    expect(report.restored).toBe(report.states)
    expect(report.restored).toBeGreaterThan(100)
  })

  it('lamport', () => {
    const types = { request: ['time'], reply: ['time'], release: ['time', 'req'] }
    const report = checkSnapshots(lamportMutex() as Factory, { seeds: 20, inputs: inputs(types) })
    expect(report.restored).toBe(report.states)
    expect(report.restored).toBeGreaterThan(100)
  })

  /**
   * With views: view requests (1: without peer 3; 2: with a joiner 4), and messages stamped with
   * views 0 to 2, `view` messages among them: kept for a later view, dropped for an older one.
   */
  const viewed =
    (types: Record<string, readonly string[]>) =>
    (random: Random, at: { self: NodeId; peers: readonly NodeId[] }): Input => {
      const roll = random.int(0, 11)
      if (roll === 0) {
        const view = random.int(1, 2)
        const members = view === 1 ? [at.self, 2] : [at.self, 2, 4]
        return { kind: 'request', req: { type: 'view', view, members } as never }
      }
      const input = inputs({ ...types, view: ['time'] })(random, at)
      if (input.kind !== 'message') return input
      const view = random.int(0, 2)
      const from = view === 2 && random.int(0, 1) === 1 ? 4 : input.from
      const msg = { ...(input.msg as object), ...(view > 0 ? { view } : {}) } as never
      return { kind: 'message', from, msg }
    }

  it('ricart-agrawala through view changes', () => {
    const types = { request: ['time'], ok: ['time', 'req'], deny: ['time', 'req'] }
    const report = checkSnapshots(ricartAgrawala() as Factory, { seeds: 20, inputs: viewed(types) })
    expect(report.restored).toBe(report.states)
    expect(report.restored).toBeGreaterThan(100)
  })

  it('maekawa, with views (SYNCs, requests of other views, a view leaving the node out)', () => {
    type Any = SnapshotInput<never, unknown>
    const gen = (random: Random, at: { self: NodeId; peers: readonly NodeId[] }): Any => {
      const roll = random.int(0, 11)
      const all = [at.self, ...at.peers]
      if (roll === 0) return { kind: 'request', req: { type: 'acquire' } }
      if (roll === 1) return { kind: 'request', req: { type: 'release' } }
      if (roll === 2) {
        const members = random.int(0, 3) === 0 ? all.slice(1) : all
        return { kind: 'request', req: { type: 'view', view: random.int(1, 2), members } }
      }
      const from = at.peers[random.int(0, at.peers.length - 1)]!
      const view = random.int(0, 2)
      const v = view === 0 ? {} : { view }
      const about = { time: random.int(1, 3), req: random.int(1, 3), ...v }
      const kinds = [
        { type: 'request', ...about, by: from },
        { type: 'locked', ...about, by: at.self, fence: random.int(0, 2) },
        { type: 'failed', ...about, by: at.self },
        { type: 'inquire', ...about, by: at.self },
        { type: 'relinquish', ...about, by: from },
        { type: 'release', ...about, by: from, fence: random.int(0, 2) },
        { type: 'sync', time: 1, view: random.int(1, 2), hold: random.int(0, 2) },
      ]
      return { kind: 'message', from, msg: kinds[roll % kinds.length] as never }
    }
    const report = checkSnapshots(maekawa() as unknown as ProtocolFactory<never, unknown>, {
      seeds: 20,
      inputs: gen,
    })
    expect(report.restored).toBe(report.states)
    expect(report.restored).toBeGreaterThan(100)
  })

  it('lamport through view changes', () => {
    const types = { request: ['time'], reply: ['time'], release: ['time', 'req'] }
    const report = checkSnapshots(lamportMutex() as Factory, { seeds: 20, inputs: viewed(types) })
    expect(report.restored).toBe(report.states)
    expect(report.restored).toBeGreaterThan(100)
  })

  it('token ring, with views', () => {
    type Any = SnapshotInput<never, unknown>
    const gen = (
      random: Random,
      at: { self: NodeId; peers: readonly NodeId[]; timers: readonly string[] },
    ): Any => {
      const roll = random.int(0, 9)
      const all = [at.self, ...at.peers]
      if (roll === 0) return { kind: 'request', req: { type: 'acquire' } }
      if (roll === 1) return { kind: 'request', req: { type: 'release' } }
      if (roll === 2) {
        const members = random.int(0, 1) === 0 ? all.slice(0, 2) : all
        return { kind: 'request', req: { type: 'view', view: random.int(1, 2), members } }
      }
      if (roll <= 4 && at.timers.length > 0)
        return { kind: 'timer', key: at.timers[random.int(0, at.timers.length - 1)]! }
      const from = at.peers[random.int(0, at.peers.length - 1)]!
      const pass = random.int(1, 2)
      const view = random.int(0, 2)
      const kinds = [
        {
          type: 'token',
          pass,
          generation: random.int(0, 1),
          count: random.int(0, 2),
          members: view === 2 ? all.slice(1) : all,
          ...(view === 0 ? {} : { view }),
        },
        { type: 'ack', pass },
        { type: 'commit', pass },
        { type: 'regen', generation: random.int(1, 2), initiator: from, live: [from], hop: pass },
        { type: 'regen-ack', hop: pass },
      ]
      return { kind: 'message', from, msg: kinds[roll % kinds.length] as never }
    }
    const report = checkSnapshots(tokenRing() as unknown as ProtocolFactory<never, unknown>, {
      seeds: 20,
      inputs: gen,
    })
    expect(report.restored).toBe(report.states)
    expect(report.restored).toBeGreaterThan(100)
  })
})
