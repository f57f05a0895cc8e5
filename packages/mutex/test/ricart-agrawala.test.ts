import { createRandom, type NodeId, type SimNetwork } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { ricartAgrawala } from '../src/ricart-agrawala/index.js'
import { handDriven } from './support/hand-driven.js'
import { type Ask, eventsOf, JITTER, namedIds, runMutex } from './support/harness.js'
import { busyWorkload, expectTimestampOrder, oneAskEach } from './support/timestamp-runs.js'

describe('ricartAgrawala: options', () => {
  it('refuses bad options at construction', () => {
    const bad = [
      { initialClock: -1 },
      { initialClock: 1.5 },
      { initialClock: { P1: Number.NaN } },
      { alwaysAnswer: 'yes' as unknown as boolean },
      { alwaysAnswer: true, answerTimeoutMs: 0 },
      { alwaysAnswer: true, answerTimeoutMs: Number.POSITIVE_INFINITY },
      { answerTimeoutMs: 50 }, // a timeout without DENY would suspect the busy
    ]
    for (const options of bad) {
      expect(() => ricartAgrawala(options), JSON.stringify(options)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }),
      )
    }
    expect(() =>
      ricartAgrawala({ initialClock: { P1: 40 }, alwaysAnswer: true, answerTimeoutMs: 5 }),
    ).not.toThrow()
  })
})

describe("ricartAgrawala: the texts' worked example", () => {
  it('P1 (41) and P2 (34) ask at once, P3 does not want it: P2 enters first, then P1', () => {
    const run = runMutex(
      ['P1', 'P2', 'P3'],
      ricartAgrawala({ initialClock: { P1: 40, P2: 33 } }),
      [
        { node: 'P1', at: 0, hold: 5 },
        { node: 'P2', at: 0, hold: 5 },
      ],
      { seed: 1, net: { latency: 3 } },
    )
    expect(run.violations).toEqual([])
    const requested = eventsOf(run, 'requested').map((e) => [e.node, e.event.time])
    expect(requested).toEqual([
      ['P1', 41],
      ['P2', 34],
    ])
    expect(run.order).toEqual({ default: ['P2', 'P1'] })
    // Only P2 held back an OK (P1's request); P3 and P1 answered at once.
    expect(eventsOf(run, 'deferred').map((e) => [e.node, e.event.to])).toEqual([['P2', 'P1']])
    // P2 enters one round trip after asking; P1 one message after P2 leaves.
    const acquired = eventsOf(run, 'acquired')
    const released = eventsOf(run, 'released')
    expect(acquired.map((e) => e.t)).toEqual([6, 11 + 3])
    expect(released[0]!.t).toBe(11)
    expect(run.net.stats.sent).toBe(2 * 2 * 2)
  })
})

describe('ricartAgrawala: properties over random workloads', () => {
  const variants = [
    { name: 'FIFO links', options: {}, net: { ...JITTER } },
    { name: 'reordering links (fifo: false)', options: {}, net: { ...JITTER, fifo: false } },
    {
      name: 'alwaysAnswer, reordering links',
      options: { alwaysAnswer: true },
      net: { ...JITTER, fifo: false },
    },
  ]
  for (const v of variants) {
    it(`${v.name}: one holder at a time, every request granted, in (T, pid) order`, () => {
      forSeeds(seedList(200), (seed) => {
        const { ids, asks } = busyWorkload(createRandom(`ra-${seed}`), 3, 150)
        const run = runMutex(ids, ricartAgrawala(v.options), asks, { seed, net: v.net })
        expectTimestampOrder(run)
        // OK or DENY comes back within a round trip (40 ms) < the 100 ms timeout.
        expect(eventsOf(run, 'peer-suspected')).toEqual([])
      })
    })
  }

  it('exactly 2(n - 1) messages per entry (plus one DENY per deferral with alwaysAnswer)', () => {
    forSeeds(seedList(200), (seed) => {
      // Every node asks once, at random moments, so requests overlap or not.
      const { ids, asks } = oneAskEach(createRandom(`ra-count-${seed}`))
      const n = ids.length
      for (const alwaysAnswer of [false, true]) {
        const run = runMutex(ids, ricartAgrawala({ alwaysAnswer }), asks, {
          seed,
          net: { ...JITTER, fifo: seed % 2 === 0 },
        })
        expect(run.entries).toBe(n)
        const denies = alwaysAnswer ? eventsOf(run, 'deferred').length : 0
        expect(run.net.stats.sent).toBe(2 * (n - 1) * n + denies)
      }
    })
  })
})

describe('ricartAgrawala: crashes', () => {
  it('plain: a crashed peer blocks every requester, silently', () => {
    const run = runMutex(
      namedIds(3),
      ricartAgrawala(),
      [
        { node: 'p1', at: 10, hold: 1 },
        { node: 'p2', at: 20, hold: 1 },
      ],
      { seed: 3, faults: (net) => net.at(5, () => net.crash('p3')) },
    )
    expect(run.violations).toEqual([])
    expect(run.granted).toBe(0)
    expect(eventsOf(run, 'peer-suspected')).toEqual([])
  })

  it('alwaysAnswer: a crashed peer is suspected, a busy one is not', () => {
    const run = runMutex(
      namedIds(3),
      ricartAgrawala({ alwaysAnswer: true, answerTimeoutMs: 50 }),
      [
        { node: 'p2', at: 0, hold: 300 }, // busy far longer than the timeout
        { node: 'p1', at: 10, hold: 1 },
      ],
      { seed: 4, net: { latency: 2 } },
    )
    expect(run.violations).toEqual([])
    expect(run.order).toEqual({ default: ['p2', 'p1'] })
    expect(eventsOf(run, 'peer-suspected')).toEqual([])
    expect(eventsOf(run, 'deferred').map((e) => e.node)).toEqual(['p2'])

    const crashed = runMutex(
      namedIds(3),
      ricartAgrawala({ alwaysAnswer: true, answerTimeoutMs: 50 }),
      [
        { node: 'p2', at: 0, hold: 300 },
        { node: 'p1', at: 10, hold: 1 },
      ],
      { seed: 4, net: { latency: 2 }, faults: (net) => net.at(1, () => net.crash('p3')) },
    )
    expect(crashed.violations).toEqual([])
    const suspected = eventsOf(crashed, 'peer-suspected')
    // p3 crashed at 1, before any request reached it: both requesters time out on it alone.
    expect(suspected.map((e) => [e.node, e.event.peer, e.t])).toEqual([
      ['p2', 'p3', 50],
      ['p1', 'p3', 60],
    ])
    expect(crashed.granted).toBe(0)
  })
})

describe('ricartAgrawala: crash and restart', () => {
  // p1 and p2 take turns early (their clocks climb); p3 only answers. p3 crashes while idle,
  // restarts, and asks at once, before it hears anything new.
  const asks: Ask[] = [
    ...[0, 10, 20, 30, 40].flatMap((at) => [
      { node: 'p1', at, hold: 2 },
      { node: 'p2', at: at + 1, hold: 2 },
    ]),
    { node: 'p3', at: 91, hold: 2 },
  ]
  const crashRestart = (wipeStorage: boolean) => (net: SimNetwork) => {
    net.at(80, () => net.crash('p3'))
    net.at(90, () => net.restart('p3', { wipeStorage }))
  }

  it('a restarted node keeps its Lamport clock: its next token is above every earlier one', () => {
    const run = runMutex(namedIds(3), ricartAgrawala(), asks, {
      seed: 5,
      faults: crashRestart(false),
    })
    expect(run.violations).toEqual([])
    expect(run.granted).toBe(run.asked)
    expect(run.order.default!.at(-1)).toBe('p3')
  })

  it('with its disk lost the clock starts over and the fencing token goes backwards', () => {
    const run = runMutex(namedIds(3), ricartAgrawala(), asks, {
      seed: 5,
      faults: crashRestart(true),
    })
    expect(run.violations).toEqual([expect.stringContaining('not above the previous')])
  })
})

describe('ricartAgrawala: safety under random crashes and restarts', () => {
  for (const alwaysAnswer of [false, true]) {
    it(`never two holders, tokens always increasing${alwaysAnswer ? ' (alwaysAnswer)' : ''}`, () => {
      forSeeds(seedList(100), (seed) => {
        const random = createRandom(`ra-crash-${seed}`)
        const { ids, asks } = busyWorkload(random, 4, 200)
        const faults = (net: SimNetwork) => {
          for (let k = random.int(1, 2); k > 0; k--) {
            const id = ids[random.int(0, ids.length - 1)]!
            const down = random.int(0, 200)
            net.at(down, () => {
              if (!net.isCrashed(id)) net.crash(id)
            })
            net.at(down + random.int(5, 50), () => {
              if (net.isCrashed(id)) net.restart(id)
            })
          }
        }
        const run = runMutex(ids, ricartAgrawala({ alwaysAnswer }), asks, {
          seed,
          net: { ...JITTER, fifo: seed % 2 === 0 },
          faults,
        })
        // Liveness is lost (forgotten deferrals, requests dropped while down); safety is not.
        expect(run.violations).toEqual([])
      })
    })
  }
})

describe('ricartAgrawala: peers that misbehave', () => {
  /** Drives one node by hand: what it sends and emits. */
  const node = (self: NodeId, peers: NodeId[]) =>
    handDriven(ricartAgrawala({ alwaysAnswer: true })(self), self, peers)

  it('malformed, stray and stale messages are reported as ignored, never thrown', () => {
    const { protocol, ctx, sent, events } = node('a', ['b', 'c'])
    const junk: Array<[NodeId, unknown]> = [
      ['b', null],
      ['b', 'request'],
      ['b', { type: 'request', resource: 'default' }],
      ['b', { type: 'request', resource: 7, time: 1 }],
      ['b', { type: 'request', resource: 'default', time: -1 }],
      ['b', { type: 'ok', resource: 'default', time: 3 }],
      ['b', { type: 'grab', resource: 'default', time: 3 }],
      ['z', { type: 'request', resource: 'default', time: 3 }], // not a member
      ['b', { type: 'ok', resource: 'default', time: 3, req: 1 }], // nothing pending
    ]
    for (const [from, m] of junk) {
      expect(() => protocol.onMessage(from, m, ctx)).not.toThrow()
    }
    expect(events.map((e) => e.type)).toEqual(junk.map(() => 'ignored'))
    expect(events[7]).toMatchObject({ from: 'z', reason: 'sender is not a member' })
    expect(sent).toEqual([])
    protocol.onRequest?.({ type: 'release' }, ctx)
    protocol.onRequest?.({ type: 'lock' }, ctx)
    expect(events.slice(junk.length)).toEqual([
      { type: 'ignored', from: 'a', reason: 'release of default not held' },
      { type: 'ignored', from: 'a', reason: 'unknown request lock' },
    ])
  })

  it('an OK for an older request does not count for the current one', () => {
    const { protocol, ctx, events } = node('a', ['b'])
    protocol.onRequest?.({ type: 'acquire' }, ctx) // T = 1
    protocol.onMessage('b', { type: 'ok', resource: 'default', time: 5, req: 0 }, ctx)
    expect(events.some((e) => e.type === 'acquired')).toBe(false)
    protocol.onMessage('b', { type: 'ok', resource: 'default', time: 6, req: 1 }, ctx)
    expect(events.at(-1)).toEqual({ type: 'acquired', resource: 'default', token: 1 * 65536 + 0 })
  })

  it('supports several named resources, each with its own turn', () => {
    const asks: Ask[] = [
      { node: 'p1', at: 0, hold: 10, resource: 'x' },
      { node: 'p2', at: 0, hold: 10, resource: 'y' },
      { node: 'p3', at: 1, hold: 10, resource: 'x' },
    ]
    const run = runMutex(namedIds(3), ricartAgrawala(), asks, { seed: 2 })
    expect(run.violations).toEqual([])
    expect(run.order).toEqual({ x: ['p1', 'p3'], y: ['p2'] })
    // p1 and p2 hold x and y at the same time: both enter one round trip after asking.
    expect(eventsOf(run, 'acquired').map((e) => [e.node, e.t])).toEqual([
      ['p1', 2],
      ['p2', 2],
      ['p3', 13],
    ])
  })
})
