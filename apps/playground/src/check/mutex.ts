/** Check spec for the mutex package: Ricart-Agrawala, judged by happens-before. */
import { type MutexRequest, ricartAgrawala } from '@sd/mutex'
import type { NodeId, ProtocolFactory, SimNetwork, TimedEvent } from '@sd/transport'
import {
  atOrBefore,
  type Clock,
  type ExploreScenario,
  type WithClock,
  withVectorClocks,
} from '@sd/transport/explore'
import { everyAskerServed } from './goals.js'
import { atEnd, type CheckSpec } from './spec.js'

export type MutexEv = { type: string; token?: number }
interface Entry {
  node: NodeId
  token: number
  acquired: Clock
  released: Clock | undefined
}

/** Each node's critical sections, in its own order, with the clocks of entry and exit. */
export function entries(events: ReadonlyArray<TimedEvent<WithClock<MutexEv>>>): Entry[] {
  const out: Entry[] = []
  const open = new Map<NodeId, Entry>()
  for (const { node, event } of events) {
    const { event: ev, vc } = event
    if (ev.type === 'acquired') {
      const entry = { node, token: ev.token ?? 0, acquired: vc, released: undefined }
      out.push(entry)
      open.set(node, entry)
    } else if (ev.type === 'released') {
      const entry = open.get(node)
      if (entry) entry.released = vc
      open.delete(node)
    }
  }
  return out
}

/**
 * Mutual exclusion by happens-before: of any two critical sections at different nodes, one left
 * before the other entered (its `released` is in the causal past of the other's `acquired`), and
 * the later one's fencing token is the larger. Two sections neither of which precedes the other
 * overlap in some run with the same causality, whatever order this one took.
 */
export function mutualExclusion(list: readonly Entry[]): string | undefined {
  for (const [i, a] of list.entries())
    for (const b of list.slice(i + 1)) {
      if (a.node === b.node) continue
      const aFirst = a.released !== undefined && atOrBefore(a.released, b.acquired)
      const bFirst = b.released !== undefined && atOrBefore(b.released, a.acquired)
      if (!aFirst && !bFirst)
        return `nodes ${String(a.node)} and ${String(b.node)} are in the critical section at once (neither left before the other entered)`
      const [first, next] = aFirst ? [a, b] : [b, a]
      if (next.token <= first.token)
        return `node ${String(next.node)} entered after node ${String(first.node)} with a token not larger (${next.token} after ${first.token})`
    }
  return undefined
}

const HOLD_MS = 1

/** Nodes 1..n. */
export const idsOf = (n: number): NodeId[] => Array.from({ length: n }, (_, i): NodeId => i + 1)

/** How a mutex scenario departs from "every node asks once at the start, nothing bounded". */
export interface MutexScenarioOptions {
  /**
   * Virtual time bound (protocols with periodic timers never go quiet): the end is reached when no
   * message is in flight and no timer is due by then. Default: the end is when nothing is left.
   */
  until?: number
  /** The nodes that ask (default all), each once. */
  askers?: readonly NodeId[]
  /** Node ids (default 1..n). */
  ids?: readonly NodeId[]
  /** Extra plans on the network (faults at set times, a coordinator change). */
  plan?: (net: SimNetwork) => void
  /** Nodes the plan takes down on purpose: their requests are not owed at the end. */
  planned?: readonly NodeId[]
  /** Judge liveness at the end when nothing failed (default true). */
  liveness?: boolean
}

/**
 * `n` nodes running `factory` (a mutex of the package's contract), each asking once at the start
 * and releasing HOLD_MS after it enters, judged by `mutualExclusion` and, at the end, liveness.
 */
export function mutexScenario<Msg>(
  factory: ProtocolFactory<Msg, MutexRequest, MutexEv>,
  n: number,
  options: MutexScenarioOptions = {},
): ExploreScenario<WithClock<MutexEv>> {
  const nodes = options.ids ?? Array.from({ length: n }, (_, i): NodeId => i + 1)
  const askers = options.askers ?? nodes
  const { until } = options
  return {
    setup(net) {
      net.launch(nodes, withVectorClocks(factory), {
        onEmit: (node, event, t) => {
          if (event.event.type === 'acquired')
            net.request<MutexRequest>(node, { type: 'release' }, t + HOLD_MS)
        },
      })
      for (const id of askers) net.request<MutexRequest>(id, { type: 'acquire' })
      options.plan?.(net)
    },
    invariant({ net, events }) {
      const list = entries(events)
      const broken = mutualExclusion(list)
      if (broken !== undefined || options.liveness === false || !atEnd(net, until)) return broken
      const planned = options.planned ?? []
      const faulty =
        net.stats.dropped.loss > 0 || nodes.some((id) => net.isCrashed(id) && !planned.includes(id))
      if (faulty) return undefined
      for (const id of askers.filter((a) => !planned.includes(a))) {
        const mine = list.filter((e) => e.node === id)
        // A section entered so late that its release is due past the bound need not be over.
        const enteredAt = events.find((e) => e.node === id && e.event.event.type === 'acquired')?.t
        const releaseLate = until !== undefined && (enteredAt ?? 0) + HOLD_MS > until
        if (mine.length !== 1 || (mine[0]!.released === undefined && !releaseLate))
          return `node ${String(id)} entered ${mine.length} time(s) and ${mine[0]?.released ? 'left' : 'did not leave'}, though it asked once and nothing failed`
      }
      return undefined
    },
  }
}

export const ricartAgrawalaCheck: CheckSpec = {
  scenario: 'mutex-ricart-agrawala',
  what: `every node asks once at the start and releases ${HOLD_MS} ms after it enters, timers and requests in any order (a section may last any time, so peers' requests arrive while it is held); of any two critical sections one ends before the other begins (happens-before, from vector clocks carried on the messages) and the later has the larger fencing token; at the end every node has entered and left once (unless a message was lost or a node crashed: Ricart-Agrawala needs reliable links and live peers, so then only safety is claimed)`,
  defaultN: 3,
  minN: 2,
  maxN: 3,
  defaults: { depth: 80, timers: 'any-order' },
  liveness: (n) => [everyAskerServed(idsOf(n), idsOf(n), 'loss-or-crash')],
  build(n) {
    return mutexScenario(ricartAgrawala(), n)
  },
}
