import type { NodeId } from '@sd/transport'
import type { AcquiredEvent, ReleasedEvent } from './contract.js'

/** One emitted event as a trace records it: who, when, what. */
export interface TimedEvent {
  node: NodeId
  t: number
  event: unknown
}

/** What a run looked like, judged from its `acquired` / `released` events alone. */
export interface MutexVerdict {
  /** Node ids in order of entry, per resource. */
  order: Record<string, NodeId[]>
  entries: number
  /** Every broken rule, in words; empty when mutual exclusion held. */
  violations: string[]
}

const isAcquired = (e: unknown): e is AcquiredEvent =>
  typeof e === 'object' && e !== null && (e as { type?: unknown }).type === 'acquired'
const isReleased = (e: unknown): e is ReleasedEvent =>
  typeof e === 'object' && e !== null && (e as { type?: unknown }).type === 'released'

/**
 * Checks mutual exclusion from a trace: on each resource, no `acquired` while another node holds
 * it (holding runs from `acquired` to its `released`, or to the node's crash, or forever), each
 * `released` closes an `acquired` of the same node and token, and tokens strictly increase.
 * `crashes` lists (node, time) of crashes, which end what the node held.
 */
export function checkMutualExclusion(
  events: readonly TimedEvent[],
  crashes: ReadonlyArray<{ node: NodeId; t: number }> = [],
): MutexVerdict {
  const violations: string[] = []
  const order: Record<string, NodeId[]> = {}
  // Every node holding each resource now: more than one is the violation being looked for, and
  // each of them still leaves through its own `released`.
  const holders = new Map<string, Array<{ node: NodeId; token: number; since: number }>>()
  const lastToken = new Map<string, number>()
  let entries = 0
  // Crashes at time t end holdings before events at t are considered (a crash is not an exit,
  // but a crashed node holds nothing any more).
  const timeline = [
    ...crashes.map((c) => ({ at: c.t, rank: 0, crash: c.node })),
    ...events.map((e, i) => ({ at: e.t, rank: 1 + i, item: e })),
  ].sort((a, b) => a.at - b.at || a.rank - b.rank)
  for (const step of timeline) {
    if ('crash' in step) {
      for (const [resource, list] of holders) {
        holders.set(
          resource,
          list.filter((h) => h.node !== step.crash),
        )
      }
      continue
    }
    const { node, t, event } = step.item!
    if (isAcquired(event)) {
      entries++
      const current = holders.get(event.resource) ?? []
      for (const other of current) {
        violations.push(
          `t=${t}: ${String(node)} acquired ${event.resource} (token ${event.token}) while ${String(other.node)} held it since t=${other.since} (token ${other.token})`,
        )
      }
      const last = lastToken.get(event.resource)
      if (last !== undefined && !(event.token > last)) {
        violations.push(
          `t=${t}: ${String(node)} acquired ${event.resource} with token ${event.token}, not above the previous ${last}`,
        )
      }
      lastToken.set(event.resource, event.token)
      holders.set(event.resource, [...current, { node, token: event.token, since: t }])
      const entered = order[event.resource] ?? []
      entered.push(node)
      order[event.resource] = entered
    } else if (isReleased(event)) {
      const current = holders.get(event.resource) ?? []
      const mine = current.findIndex((h) => h.node === node && h.token === event.token)
      if (mine < 0) {
        violations.push(
          `t=${t}: ${String(node)} released ${event.resource} (token ${event.token}) it did not hold`,
        )
      } else {
        holders.set(
          event.resource,
          current.filter((_, i) => i !== mine),
        )
      }
    }
  }
  return { order, entries, violations }
}
