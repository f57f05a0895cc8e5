import type { NodeId, SimNetwork } from '@sd/transport'
import { type ExploreScenario, explore } from '@sd/transport/explore'
import { describe, expect, it } from 'vitest'
import { causalBroadcast } from '../src/causal-delivery/index.js'
import { totalOrderBroadcast } from '../src/total-order/index.js'

const IDS: NodeId[] = [1, 2, 3]

/** One broadcast by each of `senders`, requested at the start, in any interleaving. */
function broadcasts(net: SimNetwork, senders: readonly NodeId[]): void {
  for (const id of senders) net.request(id, { type: 'broadcast', payload: `${String(id)}.1` })
}

/** Explore's events are untyped: a broadcast or a delivery of a payload, told by its fields. */
const isOf =
  (type: 'broadcast' | 'deliver') =>
  (event: unknown): event is { type: typeof type; payload: string } =>
    typeof event === 'object' &&
    event !== null &&
    'type' in event &&
    event.type === type &&
    'payload' in event &&
    typeof event.payload === 'string'
const isBroadcast = isOf('broadcast')
const isDelivery = isOf('deliver')
const delivered = (events: ExploreState['events'], node: NodeId) =>
  events
    .filter((e) => e.node === node)
    .map((e) => e.event)
    .filter(isDelivery)
    .map((event) => event.payload)
type ExploreState = Parameters<ExploreScenario['invariant']>[0]

describe('the clocks broadcasts survive every ordering at n = 3 (exhaustive, with the reduction)', () => {
  it('causal order: a broadcast after a delivery is delivered after it, everywhere', () => {
    const scenario: ExploreScenario = {
      setup(net) {
        net.launch(IDS, () => causalBroadcast<string>())
        broadcasts(net, IDS)
      },
      invariant({ events, net }) {
        // What each broadcast's sender had delivered before it: its causal past.
        const before = new Map<string, Set<string>>()
        for (const id of IDS) {
          const seen = new Set<string>()
          for (const e of events.filter((x) => x.node === id)) {
            if (isBroadcast(e.event)) before.set(e.event.payload, new Set(seen))
            if (isDelivery(e.event)) seen.add(e.event.payload)
          }
        }
        for (const id of IDS) {
          const order = delivered(events, id)
          for (const [i, m] of order.entries())
            for (const cause of before.get(m) ?? [])
              if (!order.slice(0, i).includes(cause))
                return `${String(id)} delivered ${m} before its cause ${cause}`
        }
        // At the end every member has every message.
        if (net.choices().length === 0)
          for (const id of IDS)
            if (delivered(events, id).length !== IDS.length) return `${String(id)} misses a message`
        return undefined
      },
    }
    const result = explore(scenario)
    expect(result.counterexample).toBeUndefined()
    expect(result.exhausted).toBe(true)
    expect(result.cutByDepth).toBe(0)
    expect(result.schedules).toBeGreaterThan(10)
  })

  it('total order: every member delivers the same sequence', () => {
    const scenario: ExploreScenario = {
      setup(net) {
        net.launch(IDS, () => totalOrderBroadcast<string>())
        // Two senders: with acks from everyone the orderings of three broadcasts run to millions.
        broadcasts(net, [1, 2])
      },
      invariant({ events, net }) {
        const sequences = IDS.map((id) => delivered(events, id))
        // Prefixes must agree at every moment, and be whole at the end.
        for (const s of sequences)
          for (const [i, m] of s.entries())
            for (const other of sequences)
              if (other.length > i && other[i] !== m) return `members disagree at position ${i}`
        if (net.choices().length === 0 && sequences.some((s) => s.length !== 2))
          return 'a member misses a message'
        return undefined
      },
    }
    const result = explore(scenario, { maxSchedules: 500_000 })
    expect(result.counterexample).toBeUndefined()
    expect(result.exhausted).toBe(true)
    expect(result.cutByDepth).toBe(0)
  })
})
