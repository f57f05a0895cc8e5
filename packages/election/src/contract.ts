/**
 * What every election protocol of this package understands and emits. The events are a contract:
 * the playground, a visualizer or anyone's checker judges a run from the trace alone.
 */
import type { NodeId } from '@sd/transport'

/** Local requests to a node's protocol (through `SimNetwork.request` or `runProtocol().request`). */
export type ElectionRequest =
  /** Start an election now, as if the leader had been suspected. */
  | { type: 'start' }
  /** A leader steps down: it announces it and stays out of the next election it could win. */
  | { type: 'resign' }
  /**
   * The leader hands over to `to` (the majority mode; other algorithms ignore it): see
   * `transferLeadership` on `createElection`'s handle.
   */
  | { type: 'transfer'; to: NodeId }
  /**
   * The group is view `view` of an agreed membership (the majority mode; other algorithms ignore
   * it): from now on votes and the lease count a majority of `members`, and a node not among
   * them is passive. The shape of `@sd/mutex`'s `ViewRequest`; `membershipToElection` wires it.
   */
  | { type: 'view'; view: number; members: NodeId[] }
  /**
   * The membership accepted view `view` (the one after the current), not yet committed (the
   * majority mode): until it installs it, the node counts a majority of both views and votes only
   * for candidates that know of it. `membershipToElection` wires it from `acknowledged`.
   */
  | { type: 'view-accepted'; view: number; members: NodeId[] }

/**
 * Emitted when the node learns of a (new) leader. `term` grows with every leadership and never goes
 * back at a node, also across restarts: it is the fencing token of whatever the leader guards.
 */
export interface LeaderEvent {
  type: 'leader'
  leader: NodeId
  term: number
}

/** Emitted when the node stops trusting the leader of `term` (suspected, resigned, or cut off). */
export interface LeaderLostEvent {
  type: 'leader-lost'
  term: number
}

/** The events every algorithm emits; each adds its own beside them. */
export type ElectionEvent = LeaderEvent | LeaderLostEvent

/**
 * Who is the better candidate: a higher priority, ties broken by the higher id (numbers compare
 * as numbers, strings as strings; a group uses one kind). Seed 003: a better-equipped process can
 * be preferred to the one with the highest id.
 */
export type Priorities = (id: NodeId) => number

export const byIdOnly: Priorities = () => 0

/** Positive when `a` is a better candidate than `b`, negative when worse, 0 for the same node. */
export function compareCandidates(a: NodeId, b: NodeId, priority: Priorities = byIdOnly): number {
  const pa = priority(a)
  const pb = priority(b)
  if (pa !== pb) return pa - pb
  if (a === b) return 0
  return a > b ? 1 : -1
}

/** The best candidate of `ids` (undefined when empty). */
export function bestOf(ids: Iterable<NodeId>, priority: Priorities = byIdOnly): NodeId | undefined {
  let best: NodeId | undefined
  for (const id of ids)
    if (best === undefined || compareCandidates(id, best, priority) > 0) best = id
  return best
}
