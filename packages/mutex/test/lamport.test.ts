import { createRandom, type NodeId } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import type { MutexRequest } from '../src/contract.js'
import { lamportMutex } from '../src/lamport/index.js'
import { handDriven } from './support/hand-driven.js'
import { eventsOf, JITTER, namedIds, randomAsks, runMutex } from './support/harness.js'
import { busyWorkload, expectTimestampOrder, oneAskEach } from './support/timestamp-runs.js'

describe('lamportMutex: options', () => {
  it('refuses bad options at construction', () => {
    for (const options of [{ initialClock: -1 }, { initialClock: { a: 0.5 } }, null]) {
      expect(() => lamportMutex(options as never), JSON.stringify(options)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }),
      )
    }
    expect(() => lamportMutex({ initialClock: 3 })).not.toThrow()
  })
})

describe('lamportMutex: the timestamps of the worked example', () => {
  it('P1 (41) and P2 (34) ask at once, P3 does not want it: P2 enters first, then P1', () => {
    const run = runMutex(
      ['P1', 'P2', 'P3'],
      lamportMutex({ initialClock: { P1: 40, P2: 33 } }),
      [
        { node: 'P1', at: 0, hold: 5 },
        { node: 'P2', at: 0, hold: 5 },
      ],
      { seed: 1, net: { latency: 3 } },
    )
    expect(run.violations).toEqual([])
    expect(eventsOf(run, 'requested').map((e) => e.event.time)).toEqual([41, 34])
    expect(run.order).toEqual({ default: ['P2', 'P1'] })
    // P2: request out at 0, replies back at 6. P1: P2's RELEASE sent at 11 arrives at 14.
    expect(eventsOf(run, 'acquired').map((e) => e.t)).toEqual([6, 14])
    expect(run.net.stats.sent).toBe(3 * 2 * 2)
  })
})

describe('lamportMutex: properties over random workloads (FIFO links)', () => {
  it('one holder at a time, every request granted, in (T, pid) order', () => {
    forSeeds(seedList(200), (seed) => {
      const { ids, asks } = busyWorkload(createRandom(`lamport-${seed}`), 3, 150)
      expectTimestampOrder(runMutex(ids, lamportMutex(), asks, { seed, net: JITTER }))
    })
  })

  it('exactly 3(n - 1) messages per entry', () => {
    forSeeds(seedList(200), (seed) => {
      const { ids, asks } = oneAskEach(createRandom(`lamport-count-${seed}`))
      const n = ids.length
      const run = runMutex(ids, lamportMutex(), asks, { seed, net: JITTER })
      expect(run.entries).toBe(n)
      expect(run.net.stats.sent).toBe(3 * (n - 1) * n)
    })
  })

  it('needs FIFO links: with reordering some run breaks exclusion or stalls', () => {
    // Why the FIFO requirement is real: a REPLY overtaking its sender's earlier REQUEST lets a
    // node enter past an earlier request; a RELEASE overtaking its REQUEST leaves a ghost entry.
    // Fixed seeds (not SD_SEEDS): nearly every one of them breaks (58 of 60 when measured).
    let broken = 0
    for (let seed = 1; seed <= 20; seed++) {
      const random = createRandom(`lamport-nofifo-${seed}`)
      const ids = namedIds(random.int(3, 7))
      const asks = randomAsks(ids, () => random.next(), 3 * ids.length, 150, 25)
      const run = runMutex(ids, lamportMutex(), asks, { seed, net: { ...JITTER, fifo: false } })
      if (run.violations.length > 0 || run.granted < run.asked) broken++
    }
    expect(broken).toBeGreaterThan(10)
  })
})

describe('lamportMutex: crashes and misbehaving peers', () => {
  it('a crashed node blocks every requester', () => {
    const run = runMutex(
      namedIds(3),
      lamportMutex(),
      [
        { node: 'p1', at: 10, hold: 1 },
        { node: 'p2', at: 20, hold: 1 },
      ],
      { seed: 3, faults: (net) => net.at(5, () => net.crash('p3')) },
    )
    expect(run.violations).toEqual([])
    expect(run.granted).toBe(0)
  })

  it('crash-stop: never two holders, whoever crashes when', () => {
    forSeeds(seedList(100), (seed) => {
      const random = createRandom(`lamport-crash-${seed}`)
      const { ids, asks } = busyWorkload(random, 4, 200)
      const victim = ids[random.int(0, ids.length - 1)]!
      const at = random.int(0, 200)
      const run = runMutex(ids, lamportMutex(), asks, {
        seed,
        net: JITTER,
        faults: (net) => net.at(at, () => net.crash(victim)),
      })
      expect(run.violations).toEqual([])
      // What was acknowledged before the crash may still go through; a request that needs the
      // victim's REPLY waits forever. Every entry that happens is exclusive, in token order.
    })
  })

  const node = (self: NodeId, peers: NodeId[]) => handDriven(lamportMutex()(self), self, peers)

  it('malformed, stray and unexpected messages are reported as ignored, never thrown', () => {
    const { protocol, ctx, sent, events } = node('a', ['b', 'c'])
    const junk: Array<[NodeId, unknown]> = [
      ['b', undefined],
      ['b', { type: 'request', resource: 'default', time: 'x' }],
      ['b', { type: 'release', resource: 'default', time: 4 }],
      ['b', { type: 'reply', time: 4 }],
      ['b', { type: 'grab', resource: 'default', time: 3 }],
      ['z', { type: 'request', resource: 'default', time: 3 }],
      ['b', { type: 'release', resource: 'default', time: 4, req: 2 }], // nothing queued
    ]
    for (const [from, m] of junk) {
      expect(() => protocol.onMessage(from, m, ctx)).not.toThrow()
    }
    expect(events.map((e) => e.type)).toEqual(junk.map(() => 'ignored'))
    expect(sent).toEqual([])
    // A second request from b before its release is refused (no REPLY for it).
    protocol.onMessage('b', { type: 'request', resource: 'default', time: 7 }, ctx)
    protocol.onMessage('b', { type: 'request', resource: 'default', time: 9 }, ctx)
    expect(sent).toHaveLength(1)
    expect(events.at(-1)).toMatchObject({ type: 'ignored', from: 'b' })
    protocol.onRequest?.({ type: 'release' } satisfies MutexRequest, ctx)
    expect(events.at(-1)).toEqual({
      type: 'ignored',
      from: 'a',
      reason: 'release of default not held',
    })
  })

  it('enters only past every earlier queued request, and after a later message from each peer', () => {
    const { protocol, ctx, events } = node('b', ['a', 'c'])
    protocol.onMessage('a', { type: 'request', resource: 'default', time: 1 }, ctx)
    protocol.onRequest?.({ type: 'acquire' }, ctx) // b's request is later than a's
    const entered = () => events.some((e) => e.type === 'acquired')
    protocol.onMessage('c', { type: 'reply', resource: 'default', time: 10 }, ctx)
    protocol.onMessage('a', { type: 'reply', resource: 'default', time: 10 }, ctx)
    expect(entered()).toBe(false) // a's request heads the queue
    protocol.onMessage('a', { type: 'release', resource: 'default', time: 11, req: 1 }, ctx)
    expect(entered()).toBe(true)
  })
})
