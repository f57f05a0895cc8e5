import { createRandom, type NodeId, SimNetwork } from '@sd/transport'
import { ofType } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { centralized } from '../src/centralized/index.js'
import { type Ask, type MutexRun, randomAsks, runMutex } from './support/harness.js'

const idsOf = (n: number) => Array.from({ length: n }, (_, i) => i + 1)
const eventsOf = <Ev extends { type: string }, T extends Ev['type']>(run: MutexRun<Ev>, type: T) =>
  ofType(run.events, type)
const tokensOf = <Ev extends { type: string; token?: number }>(run: MutexRun<Ev>) =>
  eventsOf(run, 'acquired').map((e) => e.event.token)
const LEASE = { leaseMs: 40, maxDelayMs: 20 }

describe('centralized: coordinator restart', () => {
  for (const [name, options] of [
    ['without leases', {}],
    ['with leases', LEASE],
  ] as const) {
    it(`keeps safety and token order when its storage survives (${name})`, () => {
      let restartsWithGrantsOnBothSides = 0
      forSeeds(seedList(150), (seed) => {
        const rnd = createRandom(seed)
        const ids = idsOf(rnd.int(2, 6))
        const crashAt = rnd.int(10, 250)
        const restartAt = crashAt + rnd.int(1, 100)
        // Node 1 coordinates and asks nothing: what it asked would die with it.
        const asks = randomAsks(ids.slice(1), () => rnd.next(), rnd.int(5, 30), 300, 80)
        const run = runMutex(ids, centralized({ coordinator: 1, ...options }), asks, {
          seed,
          net: { fifo: seed % 2 === 0, latency: { kind: 'uniform', min: 1, max: 20 } },
          until: 20_000,
          faults: (sim) => {
            sim.at(crashAt, () => sim.crash(1))
            sim.at(restartAt, () => sim.restart(1))
          },
        })
        expect(run.violations).toEqual([]) // includes: every token above the one before
        expect(run.granted).toBe(run.asked)
        const before = eventsOf(run, 'acquired').filter((e) => e.t < crashAt).length
        if (before > 0 && before < run.entries) restartsWithGrantsOnBothSides++
      })
      expect(restartsWithGrantsOnBothSides).toBeGreaterThan(0)
    })
  }

  it('goes on from the last token kept in storage, and loses it with the disk', () => {
    const asks: Ask[] = [
      { node: 2, at: 0, hold: 5 },
      { node: 3, at: 20, hold: 5 },
      { node: 2, at: 60, hold: 5 },
    ]
    const plan = (wipeStorage: boolean) => (sim: SimNetwork) => {
      sim.at(40, () => sim.crash(1))
      sim.at(50, () => sim.restart(1, { wipeStorage }))
    }
    const kept = runMutex([1, 2, 3], centralized({ coordinator: 1 }), asks, {
      seed: 1,
      net: { latency: 1 },
      faults: plan(false),
    })
    expect(tokensOf(kept)).toEqual([1, 2, 3])
    expect(kept.violations).toEqual([])
    expect(kept.net.storageOf(1)).toMatchObject({ 'token:default': 3, boots: 2 })
    // The disk is lost: the coordinator starts over as a new node, and token 1 comes back.
    const wiped = runMutex([1, 2, 3], centralized({ coordinator: 1 }), asks, {
      seed: 1,
      net: { latency: 1 },
      faults: plan(true),
    })
    expect(tokensOf(wiped)).toEqual([1, 2, 1])
    expect(wiped.violations).toEqual([
      expect.stringContaining('with token 1, not above the previous 2'),
    ])
  })

  it('a restarted coordinator asks for the state (RECOVER) and grants only after hearing everyone', () => {
    // Node 2 holds across the coordinator's crash; node 3's request was lost with the coordinator.
    const asks: Ask[] = [
      { node: 2, at: 0, hold: 60 },
      { node: 3, at: 10, hold: 5 },
    ]
    const run = runMutex([1, 2, 3], centralized({ coordinator: 1 }), asks, {
      seed: 1,
      net: { latency: 1 },
      faults: (sim) => {
        sim.at(20, () => sim.crash(1))
        sim.at(30, () => sim.restart(1))
      },
    })
    expect(run.violations).toEqual([])
    expect(run.order).toEqual({ default: [2, 3] })
    expect(eventsOf(run, 'recovered').map((e) => e.t)).toEqual([32])
    const entry3 = eventsOf(run, 'acquired').find((e) => e.node === 3)!
    expect(entry3.t).toBe(64) // after 2's release at 62, not at recovery
    expect(tokensOf(run)).toEqual([1, 2])
  })
  it('a GRANT sent before the restart that arrives after the RECOVER is ignored', () => {
    // The first message from 1 to 3 (a GRANT) takes 30 ms; every other message 1 ms.
    let slow = true
    const latency = (_random: () => number, from: NodeId, to: NodeId) => {
      if (from === 1 && to === 3 && slow) {
        slow = false
        return 30
      }
      return 1
    }
    const asks: Ask[] = [
      { node: 2, at: 0, hold: 10 },
      { node: 3, at: 1, hold: 10 },
      { node: 2, at: 5, hold: 50 },
    ]
    const run = runMutex([1, 2, 3], centralized({ coordinator: 1 }), asks, {
      seed: 1,
      net: { latency, fifo: false },
      faults: (sim) => {
        sim.at(14, () => sim.crash(1)) // the GRANT to 3 (token 2) left at 13
        sim.at(16, () => sim.restart(1))
      },
    })
    expect(run.violations).toEqual([])
    const stale = eventsOf(run, 'ignored').map((e) => [e.node, e.t, e.event.reason])
    expect(stale).toEqual([[3, 43, 'grant sent before the coordinator restarted']])
    expect(run.order).toEqual({ default: [2, 2, 3] })
    expect(tokensOf(run)).toEqual([1, 3, 4])
  })
})

describe('centralized: leases', () => {
  const leased = centralized({ coordinator: 1, ...LEASE })

  it('a holder renews and keeps the resource as long as it likes', () => {
    const asks: Ask[] = [
      { node: 2, at: 0, hold: 500 },
      { node: 3, at: 5, hold: 5 },
    ]
    const run = runMutex([1, 2, 3], leased, asks, { seed: 1, net: { latency: 1 } })
    expect(run.violations).toEqual([])
    expect(eventsOf(run, 'lease-lost')).toEqual([])
    // Granted at 503 after a wait longer than a lease: the GRANT is late (its lease counts from
    // the request at 5), so the request goes again and the fresh GRANT comes one round trip later.
    expect(eventsOf(run, 'grant-late').map((e) => e.node)).toEqual([3])
    expect(eventsOf(run, 'acquired').find((e) => e.node === 3)!.t).toBe(506)
    expect(run.net.stats.byType.renew).toBeGreaterThan(30)
  })

  it('a crashed holder blocks the resource only until its lease ran out', () => {
    const asks: Ask[] = [
      { node: 2, at: 0, hold: 500 },
      { node: 3, at: 5, hold: 5 },
    ]
    const run = runMutex([1, 2, 3], leased, asks, {
      seed: 1,
      net: { latency: 1 },
      faults: (sim) => sim.at(20, () => sim.crash(2)),
    })
    expect(run.violations).toEqual([])
    const expired = eventsOf(run, 'lease-expired')
    expect(expired).toHaveLength(1)
    const entry3 = eventsOf(run, 'acquired').find((e) => e.node === 3)!
    // The GRANT, then (node 3 asked at 5, longer than a lease ago) one more round trip.
    expect(entry3.t).toBe(expired[0]!.t + 3)
    expect(entry3.t).toBeLessThan(20 + 40 + 20 + 4)
  })

  it('a holder cut off from the coordinator loses the lease (lease-lost, then released) before anyone else enters', () => {
    let losses = 0
    forSeeds(seedList(100), (seed) => {
      const rnd = createRandom(seed)
      const ids = idsOf(rnd.int(3, 6))
      const asks = randomAsks(ids.slice(1), () => rnd.next(), rnd.int(5, 20), 300, 80)
      const cut = ids[rnd.int(1, ids.length - 1)]!
      const run = runMutex(ids, leased, asks, {
        seed,
        net: { fifo: false, latency: { kind: 'uniform', min: 1, max: 20 } },
        until: 5000,
        faults: (sim) => {
          sim.at(rnd.int(0, 200), () => sim.partition([cut]))
          sim.at(rnd.int(300, 400), () => sim.heal())
        },
      })
      expect(run.violations).toEqual([])
      for (const lost of eventsOf(run, 'lease-lost')) {
        losses++
        const i = run.events.indexOf(lost)
        expect(run.events[i + 1]!.event).toMatchObject({ type: 'released', resource: 'default' })
      }
    })
    expect(losses).toBeGreaterThan(0)
  })
})

describe('centralized: the coordinator restarts while its members are partitioned', () => {
  it('a member that restarts asks for RECOVER, so a recovering coordinator is not kept waiting', () => {
    const sim = new SimNetwork({ seed: 1, latency: 1 })
    const seen: Array<{ node: NodeId; t: number; type: string }> = []
    sim.launch([1, 2, 3], centralized({ coordinator: 1 }), {
      onEmit: (node, event, t) => seen.push({ node, t, type: event.type }),
    })
    sim.at(5, () => {
      sim.crash(1)
      sim.crash(3)
    })
    sim.at(10, () => sim.restart(1)) // RECOVER reaches 2 only: 3 is down
    sim.at(50, () => sim.restart(3)) // 3's SYNC of no incarnation, RECOVER, 3's SYNC: recovered
    sim.at(60, () => sim.request(2, { type: 'acquire' }))
    sim.run()
    expect(seen.filter((s) => s.type === 'recovered')).toEqual([
      { node: 1, t: 53, type: 'recovered' },
    ])
    expect(seen.filter((s) => s.type === 'acquired')).toEqual([
      { node: 2, t: 62, type: 'acquired' },
    ])
  })
})
