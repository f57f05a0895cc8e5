import { createRandom, isRecord, type NodeId, SimNetwork } from '@sd/transport'
import { traceOfType } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { type CentralizedEvent, centralized } from '../src/centralized/index.js'
import { checkMutualExclusion } from '../src/check.js'
import {
  type Ask,
  eventsOf,
  type MutexRun,
  randomAsks,
  runMutex,
  tokensOf,
} from './support/harness.js'

const idsOf = (n: number) => Array.from({ length: n }, (_, i) => i + 1)
const TERM = 2 ** 32
const LEASE = { leaseMs: 40, maxDelayMs: 20 } // latencies below stay within 20 ms
const net = (seed: number) => ({
  fifo: seed % 2 === 0,
  latency: { kind: 'uniform' as const, min: 1, max: 20 },
})

/** Asks of nodes other than `down`, and how many of them entered. */
function served(run: MutexRun<CentralizedEvent>, asks: readonly Ask[], down: NodeId) {
  const asked = asks.filter((a) => a.node !== down).length
  const granted = eventsOf(run, 'acquired').filter((e) => e.node !== down).length
  return { asked, granted }
}

const moveTo = (sim: SimNetwork, ids: readonly NodeId[], id: NodeId, term: number) => {
  for (const node of ids)
    if (!sim.isCrashed(node)) sim.request(node, { type: 'coordinator', id, term })
}

describe('centralized: coordinator crashed, then moved to another node', () => {
  for (const whenBusy of ['queue', 'deny'] as const) {
    it(`keeps safety (with leases), serves every live node, tokens increase across the change (${whenBusy})`, () => {
      const protocol = centralized({
        coordinator: 1,
        whenBusy,
        answerTimeoutMs: 50,
        retryBaseMs: 2,
        retryMaxMs: 40,
        ...LEASE,
      })
      forSeeds(seedList(150), (seed) => {
        const rnd = createRandom(seed)
        const ids = idsOf(rnd.int(3, 6))
        const newC = ids[rnd.int(1, ids.length - 1)]!
        const crashAt = rnd.int(10, 200)
        const moveAt = crashAt + rnd.int(0, 100)
        const asks = randomAsks(ids, () => rnd.next(), rnd.int(5, 30), 300, 60).map((a) => ({
          ...a,
          resource: rnd.next() < 0.5 ? 'a' : 'b',
        }))
        const run = runMutex(ids, protocol, asks, {
          seed,
          net: net(seed),
          until: 20_000,
          faults: (sim) => {
            sim.at(crashAt, () => sim.crash(1))
            sim.at(moveAt, () => moveTo(sim, ids, newC, 2))
          },
        })
        expect(run.violations).toEqual([]) // includes: tokens strictly increase
        const { asked, granted } = served(run, asks, 1)
        expect(granted).toBe(asked)
        const after = eventsOf(run, 'acquired').filter((e) => e.t > moveAt)
        for (const e of after) expect(e.event.token).toBeGreaterThan(2 * TERM)
        // The new coordinator granted nothing before one lease (plus a message delay) ran out:
        // node 1 is down and cannot report.
        const first = run.events.find((e) => e.event.type === 'granted' && e.node === newC)
        if (first !== undefined) expect(first.t).toBeGreaterThanOrEqual(moveAt + 60)
      })
    })
  }

  it('rule 3: waiting requests are sent again to the new coordinator, and served', () => {
    const asks: Ask[] = [
      { node: 2, at: 0, hold: 30 },
      { node: 3, at: 1, hold: 5 },
      { node: 4, at: 2, hold: 5 },
    ]
    const run = runMutex([1, 2, 3, 4, 5], centralized({ coordinator: 1, ...LEASE }), asks, {
      seed: 1,
      net: { latency: 1 },
      faults: (sim) => {
        sim.at(10, () => sim.crash(1))
        sim.at(20, () => moveTo(sim, [2, 3, 4, 5], 5, 2))
      },
    })
    expect(run.violations).toEqual([])
    expect(run.order).toEqual({ default: [2, 3, 4] })
    const sent = (type: string) =>
      traceOfType(run.net.trace, 'send')
        .filter((e) => isRecord(e.msg) && e.msg.type === type && e.t >= 20)
        .map((e) => [e.t, e.from, e.msg])
    const seq = TERM + 1 // first request of each node's first incarnation
    // At once, the waiting requests go to node 5 (rule 3)...
    const at = expect.any(Number) // the client's monotonic clock when the copy left
    expect(sent('request').filter(([t]) => t === 20)).toEqual([
      [20, 3, { type: 'request', term: 2, resource: 'default', seq, at }],
      [20, 4, { type: 'request', term: 2, resource: 'default', seq, at }],
    ])
    // ...which asks every member for its state (rule 4): the holder tells it holds token 1.
    expect(sent('recover').map(([t, from]) => [t, from])).toEqual([
      [20, 5],
      [20, 5],
      [20, 5],
      [20, 5],
    ])
    expect(sent('sync')).toEqual([
      [
        21,
        2,
        { type: 'sync', term: 2, epoch: 1, held: [{ resource: 'default', token: 1 }], wanted: [] },
      ],
      [
        21,
        3,
        { type: 'sync', term: 2, epoch: 1, held: [], wanted: [{ resource: 'default', seq, at }] },
      ],
      [
        21,
        4,
        { type: 'sync', term: 2, epoch: 1, held: [], wanted: [{ resource: 'default', seq, at }] },
      ],
    ])
    // The old term's token 1, then the new term's.
    expect(tokensOf(run, 'acquired')).toEqual([1, 2 * TERM + 1, 2 * TERM + 2])
  })

  it('rule 4: the holder tells the new coordinator, which grants no one else until it releases', () => {
    // No crash and no leases: node 3 takes over once every member reported; node 2 holds on.
    const asks: Ask[] = [
      { node: 2, at: 0, hold: 100 },
      { node: 4, at: 30, hold: 5 },
    ]
    const run = runMutex([1, 2, 3, 4], centralized({ coordinator: 1 }), asks, {
      seed: 1,
      net: { latency: 1 },
      faults: (sim) => sim.at(20, () => moveTo(sim, [1, 2, 3, 4], 3, 5)),
    })
    expect(run.violations).toEqual([])
    const recovered = eventsOf(run, 'recovered')
    expect(recovered).toEqual([
      {
        node: 3,
        t: 22,
        event: { type: 'recovered', term: 5, heardFrom: expect.arrayContaining([1, 2, 3, 4]) },
      },
    ])
    const [released] = eventsOf(run, 'released')
    const entry4 = eventsOf(run, 'acquired').find((e) => e.node === 4)!
    expect(released!.t).toBe(102)
    expect(entry4.t).toBe(104) // RELEASE to 3, GRANT to 4
    expect(tokensOf(run, 'acquired')).toEqual([1, 5 * TERM + 1])
    expect(run.net.stats.byType.release).toBe(2)
  })

  it('rule 5: messages of an older term are ignored, and their sender told the new term', () => {
    const sim = new SimNetwork({ seed: 1 })
    const seen: Array<{ node: NodeId; event: { type: string; reason?: string } }> = []
    sim.launch([1, 2, 3], centralized({ coordinator: 1 }), {
      onEmit: (node, event) => seen.push({ node, event }),
    })
    moveTo(sim, [1, 2, 3], 2, 3)
    sim.run()
    const old = sim.addNode('old')
    const heard: unknown[] = []
    old.onMessage((from, msg) => heard.push([from, msg]))
    old.send(2, { type: 'request', term: 1, resource: 'r', seq: 1, at: 0 })
    old.send(3, { type: 'grant', term: 0, epoch: 1, resource: 'r', seq: 1, token: 1, at: 0 })
    sim.request(3, { type: 'coordinator', id: 1, term: 2 }) // older
    sim.request(3, { type: 'coordinator', id: 1, term: 3 }) // same term, another node
    sim.run()
    const ignored = seen.filter((s) => s.event.type === 'ignored')
    expect(ignored.map((s) => s.node).sort()).toEqual([2, 3, 3, 3])
    expect(heard.sort((a, b) => String(a).localeCompare(String(b)))).toEqual([
      [2, { type: 'newer', term: 3, coordinator: 2 }],
      [3, { type: 'newer', term: 3, coordinator: 2 }],
    ])
    expect(seen.filter((s) => s.event.type === 'coordinator-changed')).toHaveLength(3)
  })

  it('rule 5: a node that learns late takes the newer term from the first message that carries it', () => {
    // Only nodes 1 and 2 get the coordinator request (to node 3, term 4). Node 4 is down then;
    // restarted, it reports to node 1 under term 0 and is told the new term (NEWER). Its request
    // of term 4 is how node 3 learns that it coordinates: it takes over, asks everyone (RECOVER),
    // and grants once every member answered.
    const asks: Ask[] = [{ node: 4, at: 50, hold: 5 }]
    const run = runMutex([1, 2, 3, 4], centralized({ coordinator: 1 }), asks, {
      seed: 1,
      net: { latency: 1 },
      faults: (sim) => {
        sim.at(5, () => sim.crash(4))
        sim.at(10, () => moveTo(sim, [1, 2], 3, 4))
        sim.at(40, () => sim.restart(4))
      },
    })
    expect(run.violations).toEqual([])
    const changed = eventsOf(run, 'coordinator-changed').map((e) => [e.node, e.t])
    expect(changed).toEqual([
      [1, 10],
      [2, 10],
      [4, 42],
      [3, 51],
    ])
    expect(eventsOf(run, 'recovered').map((e) => e.t)).toEqual([53])
    expect(eventsOf(run, 'acquired').map((e) => [e.node, e.t, e.event.token])).toEqual([
      [4, 54, 4 * TERM + 1],
    ])
  })

  it('rule 6: a claim after the new coordinator already granted the resource is revoked', () => {
    const sim = new SimNetwork({ seed: 1, latency: 1 })
    const seen: Array<{ node: NodeId; t: number; event: { type: string } }> = []
    sim.launch([1, 2, 3], centralized({ coordinator: 1, ...LEASE }), {
      onEmit: (node, event, t) => seen.push({ node, t, event }),
    })
    sim.request(2, { type: 'acquire' }) // 2 holds under term 0
    sim.at(5, () => sim.partition([2], [1, 3])) // 2 is cut off: its SYNC will not arrive
    sim.at(10, () => sim.crash(1))
    sim.at(12, () => moveTo(sim, [2, 3], 3, 1))
    sim.at(13, () => sim.request(3, { type: 'acquire' }))
    sim.run({ until: 200 })
    const got3 = seen.find((s) => s.event.type === 'acquired' && s.node === 3)!
    const lost2 = seen.find((s) => s.event.type === 'lease-lost' && s.node === 2)!
    expect(lost2.t).toBeLessThan(got3.t) // 2's lease ran out before 3 entered
    const afterLoss = seen[seen.indexOf(lost2) + 1]!
    expect([afterLoss.node, afterLoss.event.type]).toEqual([2, 'released'])
    const timed = seen.map((s) => ({ node: s.node, t: s.t, event: s.event }))
    expect(checkMutualExclusion(timed, [{ node: 1, t: 10 }]).violations).toEqual([])
    sim.heal()
    // A claim for the resource now, in the new term (the coordinator granted it in this term).
    const old = sim.addNode('old')
    old.send(3, {
      type: 'sync',
      term: 1,
      epoch: 1,
      held: [{ resource: 'default', token: 1 }],
      wanted: [],
    })
    sim.run({ until: 400 })
    expect(
      traceOfType(sim.trace, 'send').some(
        (e) => e.from === 3 && e.to === 'old' && isRecord(e.msg) && e.msg.type === 'revoked',
      ),
    ).toBe(true)
  })
})
