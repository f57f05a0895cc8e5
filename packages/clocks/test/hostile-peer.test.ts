/**
 * Hostile messages to the two delivery protocols, over many seeds (wrong types, missing fields,
 * NaN and huge numbers, huge arrays, own `__proto__` / `constructor` / `prototype` keys): no node
 * throws, every certainly malformed message is refused with an `ignored` event naming its sender,
 * and the honest members still deliver every broadcast, in causal or in one total order.
 */
import { type Ctx, type NodeId, type Protocol, SimNetwork, type TimedEvent } from '@sd/transport'
import { ofType } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import {
  emptyHostileLog,
  type HostilePeerLog,
  hostilePeer,
  twoFaced,
} from '../../../test-support/hostile-messages.js'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { type CausalEvent, causalBroadcast } from '../src/causal-delivery/index.js'
import { type TotalOrderEvent, totalOrderBroadcast } from '../src/total-order/index.js'

const HONEST: NodeId[] = [1, 2, 3]
const EVIL = 99
const BROADCASTS = 12

/** A node outside the group that sends to the group's members as if it were one of them. */
function outsider(junk: Protocol<unknown, unknown, never>): Protocol<unknown, unknown, never> {
  // The group's ctx.peers would be empty: the hostile peer picks its targets from these.
  const aimed = (ctx: Ctx<unknown, never>) =>
    Object.create(ctx, { peers: { value: HONEST } }) as Ctx<unknown, never>
  return {
    start: (ctx) => junk.start?.(aimed(ctx)),
    onMessage() {},
    onTimer: (key, ctx) => junk.onTimer?.(key, aimed(ctx)),
  }
}

type DeliveryEvent = { type: string; from?: NodeId; reason?: string; payload?: unknown }

interface HostileRun<Ev> {
  events: TimedEvent<Ev>[]
  log: HostilePeerLog
}

/** Broadcasts by the members at random times, under the hostile node's junk. */
function run<Ev extends DeliveryEvent>(
  seed: number,
  members: readonly NodeId[],
  launch: (
    net: SimNetwork,
    log: HostilePeerLog,
    onEmit: (n: NodeId, e: Ev, t: number) => void,
  ) => void,
): HostileRun<Ev> {
  const net = new SimNetwork({
    seed,
    latency: { kind: 'uniform', min: 1, max: 20 },
    fifo: false,
    trace: false,
  })
  const log = emptyHostileLog()
  const events: TimedEvent<Ev>[] = []
  launch(net, log, (node, event, t) => events.push({ node, t, event }))
  for (let k = 0; k < BROADCASTS; k++)
    net.request(members[k % members.length]!, { type: 'broadcast', payload: `b${k}` }, 5 + k * 9)
  net.run({ until: 5_000 })
  return { events, log }
}

/** Every certainly malformed message was refused, naming the hostile node, and nothing else was. */
function expectRefusals<Ev extends DeliveryEvent>(r: HostileRun<Ev>, honest: readonly NodeId[]) {
  const ignored = r.events.filter((e) => e.event.type === 'ignored')
  for (const { event } of ignored) expect(event.from, event.reason).toBe(EVIL)
  for (const id of honest) {
    const refused = ignored.filter((e) => e.node === id).length
    expect(refused, `refusals at ${String(id)}`).toBeGreaterThanOrEqual(
      r.log.malformedTo.get(id) ?? 0,
    )
  }
  expect(ignored.length).toBeGreaterThan(0)
}

const junk = (log: HostilePeerLog, samples: unknown[], malformedOnly: boolean) =>
  hostilePeer({ samples, opaque: ['payload'], count: 60, everyMs: 3, log, malformedOnly })

/** Each node's delivered payloads, in order. */
function deliveries(events: readonly TimedEvent<DeliveryEvent>[], node: NodeId): unknown[] {
  return events
    .filter((e) => e.node === node && e.event.type === 'deliver')
    .map((e) => e.event.payload)
}

/** Causal order: whatever a sender had delivered before a broadcast is delivered before it, everywhere. */
function expectCausalDelivery(
  events: readonly TimedEvent<CausalEvent<string>>[],
  nodes: readonly NodeId[],
) {
  const past = new Map<string, string[]>()
  for (const id of nodes) {
    const seen: string[] = []
    for (const { node, event } of events) {
      if (node !== id) continue
      if (event.type === 'broadcast') past.set(event.payload, [...seen])
      if (event.type === 'deliver') seen.push(event.payload)
    }
  }
  for (const id of nodes) {
    const order = deliveries(events, id)
    expect(order, `node ${String(id)} delivers every broadcast once`).toHaveLength(BROADCASTS)
    expect(new Set(order).size).toBe(BROADCASTS)
    for (const [payload, before] of past)
      for (const earlier of before)
        expect(
          order.indexOf(earlier),
          `${earlier} before ${payload} at ${String(id)}`,
        ).toBeLessThan(order.indexOf(payload))
  }
}

describe('the delivery protocols under hostile messages (many seeds)', () => {
  it('causal: junk of every kind from outside the group is refused, delivery stays causal', () => {
    forSeeds(seedList(40), (seed) => {
      const r = run<CausalEvent<string>>(seed, HONEST, (net, log, onEmit) => {
        net.launch(HONEST, () => causalBroadcast<string>(), { onEmit })
        const samples = [{ type: 'causal', clock: [0, 0, 1], payload: 'x' }]
        net.launch([EVIL], () => outsider(junk(log, samples, false)))
      })
      expectRefusals(r, HONEST)
      expectCausalDelivery(r.events, HONEST)
    })
  })

  it('causal: a member sending malformed messages beside its own broadcasts changes nothing', () => {
    const members = [...HONEST, EVIL]
    forSeeds(seedList(40), (seed) => {
      const r = run<CausalEvent<string>>(seed, members, (net, log, onEmit) => {
        const samples = [{ type: 'causal', clock: [0, 0, 0, 1], payload: 'x' }]
        net.launch(
          members,
          (self) =>
            self === EVIL
              ? twoFaced(causalBroadcast<string>(), junk(log, samples, true))
              : causalBroadcast<string>(),
          { onEmit },
        )
      })
      expectRefusals(r, HONEST)
      expectCausalDelivery(r.events, members)
    })
  })

  const totalSamples = [
    { type: 'to-msg', link: 0, time: 1, payload: 'x' },
    { type: 'to-ack', link: 0, time: 2, of: { time: 1, pid: 1 } },
  ]
  const expectOneSequence = (
    events: readonly TimedEvent<TotalOrderEvent<string>>[],
    nodes: readonly NodeId[],
  ) => {
    const first = deliveries(events, nodes[0]!)
    expect(first).toHaveLength(BROADCASTS)
    for (const id of nodes) expect(deliveries(events, id), `node ${String(id)}`).toEqual(first)
    expect(ofType(events, 'deliver').every((e) => typeof e.event.payload === 'string')).toBe(true)
  }

  it('total order: junk of every kind from outside the group is refused, one sequence everywhere', () => {
    forSeeds(seedList(40), (seed) => {
      const r = run<TotalOrderEvent<string>>(seed, HONEST, (net, log, onEmit) => {
        net.launch(HONEST, () => totalOrderBroadcast<string>(), { onEmit })
        net.launch([EVIL], () => outsider(junk(log, totalSamples, false)))
      })
      expectRefusals(r, HONEST)
      expectOneSequence(r.events, HONEST)
    })
  })

  it('total order: a member sending malformed messages beside its part changes nothing', () => {
    const members = [...HONEST, EVIL]
    forSeeds(seedList(40), (seed) => {
      const r = run<TotalOrderEvent<string>>(seed, members, (net, log, onEmit) => {
        net.launch(
          members,
          (self) =>
            self === EVIL
              ? twoFaced(totalOrderBroadcast<string>(), junk(log, totalSamples, true))
              : totalOrderBroadcast<string>(),
          { onEmit },
        )
      })
      expectRefusals(r, HONEST)
      expectOneSequence(r.events, members)
    })
  })
})

describe('a Lamport time near 2^53 from a member', () => {
  /** A member that, before anything else, sends each other member a broadcast stamped `time`. */
  const pusher = (time: number): Protocol<unknown, unknown, never> => ({
    start(ctx) {
      for (const peer of HONEST) ctx.send(peer, { type: 'to-msg', link: 0, time, payload: 'x' })
    },
    onMessage() {},
  })

  it.each([2 ** 53 - 2, Number.MAX_SAFE_INTEGER, 2 ** 52 + 1])(
    'total order: %d is refused, and no node throws on its next send',
    (time) => {
      const members = [...HONEST, EVIL]
      const r = run<TotalOrderEvent<string>>(1, members, (net, _log, onEmit) => {
        net.launch(
          members,
          (self) => (self === EVIL ? pusher(time) : totalOrderBroadcast<string>()),
          { onEmit },
        )
      })
      const refused = ofType(r.events, 'ignored')
      expect(refused.map((e) => e.node).sort()).toEqual(HONEST)
      for (const { event } of refused) {
        expect(event.from).toBe(EVIL)
        expect(event.reason).toMatch(/Lamport time/)
      }
      // The honest members went on broadcasting after the push (and so sent, and acked).
      expect(ofType(r.events, 'broadcast')).toHaveLength(BROADCASTS - BROADCASTS / members.length)
    },
  )
})
