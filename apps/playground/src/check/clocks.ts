/** Check specs for the clocks package: causal and total-order broadcast. */
import {
  type CausalBroadcastRequest,
  type CausalEvent,
  causalBroadcast,
  causalRelabel,
  type TotalOrderEvent,
  totalOrderBroadcast,
} from '@sd/clocks'
import type { NodeId, Protocol, TimedEvent } from '@sd/transport'
import type { ExploreScenario } from '@sd/transport/explore'
import { everyBroadcastDelivered } from './goals.js'
import type { CheckSpec } from './spec.js'

type Ev = CausalEvent<string> | TotalOrderEvent<string>
const ids = (n: number): NodeId[] => Array.from({ length: n }, (_, i) => i + 1)
const delivered = (events: ReadonlyArray<TimedEvent<Ev>>, node: NodeId) =>
  events.flatMap((e) => (e.node === node && e.event.type === 'deliver' ? [e.event.payload] : []))

/** Who delivers what: the causal buffer of @sd/clocks, or a broken one in the tests. */
export type CausalFactory = () => Protocol<
  unknown,
  CausalBroadcastRequest<string>,
  CausalEvent<string>
>

/**
 * Every member broadcasts `each` messages at the start (`m<id>`, or `m<id>.<j>` with more than
 * one); the invariant: no member delivers a message before one its sender had delivered.
 */
export function causalScenario(
  n: number,
  each = 1,
  factory: CausalFactory = () => causalBroadcast<string>(),
): ExploreScenario<CausalEvent<string>> {
  const members = ids(n)
  return {
    setup(net) {
      net.launch(members, factory)
      for (const id of members)
        for (let j = 1; j <= each; j++)
          net.request(id, {
            type: 'broadcast',
            payload: each === 1 ? `m${String(id)}` : `m${String(id)}.${j}`,
          })
    },
    invariant({ events }) {
      const past = new Map<string, Set<string>>()
      for (const id of members) {
        const seen = new Set<string>()
        for (const e of events.filter((x) => x.node === id)) {
          const ev = e.event
          if (ev.type === 'broadcast') past.set(ev.payload, new Set(seen))
          if (ev.type === 'deliver') seen.add(ev.payload)
        }
      }
      for (const id of members) {
        const order = delivered(events, id)
        for (const [i, m] of order.entries())
          for (const cause of past.get(m) ?? [])
            if (!order.slice(0, i).includes(cause))
              return `node ${String(id)} delivered ${m} before ${cause}, which its sender had delivered`
      }
      return undefined
    },
  }
}

/**
 * The members are interchangeable: each broadcasts its own messages alike, nothing is decided by
 * comparing ids, no randomness, and the setup and invariant treat them alike. One order is taken
 * from the ids: the buffer drains held messages sender by sender in id order; it reorders only
 * messages deliverable at the same moment (concurrent ones), which the invariant does not
 * compare, and leaves the buffer in the same state, so the verdict is the same.
 */
export function causalSymmetry(n: number): Pick<ExploreScenario, 'symmetric' | 'relabel'> {
  return { symmetric: true, relabel: causalRelabel(ids(n), renameSender) }
}

export const causalOrderCheck: CheckSpec = {
  scenario: 'causal-order',
  what: 'every member broadcasts once at the start; no member delivers a message before one its sender had delivered',
  defaultN: 3,
  minN: 2,
  maxN: 4,
  defaults: { depth: 60 },
  liveness: (n) => [everyBroadcastDelivered(ids(n), n)],
  symmetry: causalSymmetry,
  build: (n) => causalScenario(n),
}

export const totalOrderCheck: CheckSpec = {
  scenario: 'total-order',
  what: 'two members broadcast at the start; every member delivers the same sequence',
  defaultN: 3,
  minN: 2,
  maxN: 3,
  defaults: { depth: 80, maxSchedules: 500_000 },
  liveness: (n) => [everyBroadcastDelivered(ids(n), 2)],
  build(n): ExploreScenario<TotalOrderEvent<string>> {
    const members = ids(n)
    return {
      setup(net) {
        net.launch(members, () => totalOrderBroadcast<string>())
        for (const id of members.slice(0, 2))
          net.request(id, { type: 'broadcast', payload: `m${String(id)}` })
      },
      invariant({ events }) {
        const sequences = members.map((id) => delivered(events, id))
        for (const s of sequences)
          for (const [i, m] of s.entries())
            for (const other of sequences)
              if (other.length > i && other[i] !== m)
                return `two members disagree at position ${i + 1}`
        return undefined
      },
    }
  },
}

/** The check's payloads name their sender (`m<id>` or `m<id>.<j>`): renamed with it. */
function renameSender(payload: unknown, rename: (id: NodeId) => NodeId): unknown {
  const match = typeof payload === 'string' ? /^m(\d+)(\..*)?$/.exec(payload) : null
  return match === null ? payload : `m${String(rename(Number(match[1])))}${match[2] ?? ''}`
}
