import type { NodeId } from '@sd/transport'
import { compareNodeIds } from '@sd/transport'
import { idMap, type Snapshot, snapshotFields } from '../snapshot.js'
import { type Hold, holdOf, isExclusive, type Want, wantJson, wantOf } from './kinds.js'

/** A holder at the coordinator. `seq`: the request it answered (-1 for one reported in a SYNC). */
export interface Holder extends Hold {
  node: NodeId
  token: number
  seq: number
  at: number
  /** Option `burst`: the grant covers this many entries (tokens `token` on); absent: 1. */
  burst?: number
}

/** A waiting request; `at` of the latest copy (echoed by GRANT). */
export interface Waiting extends Want {
  node: NodeId
  seq: number
  at: number
}

/** One resource at the coordinator: its holders (one exclusive, or several shared / permit ones). */
export interface Resource {
  /** By node: a node holds a resource once. */
  holders: Map<NodeId, Holder>
  /** Requests waiting, in the order received (the reader policy picks among them). */
  queue: Waiting[]
  /** Per client, the last request seq queued or granted: a late duplicate is not served twice. */
  seen: Map<NodeId, number>
  /** The highest exclusive token released (or expired): a claim at or below it is stale. */
  closed: number
  /**
   * Shared and permit tokens released above `closed`: such entries end in any order, so a claim
   * is stale only when its own token ended.
   */
  closedShared: Set<number>
  /** With `lockDelayMs`: what expired leases held, by token, still taken until their delay ends. */
  delayed: Map<number, Hold>
  /**
   * Holders a steal revoked that have not acknowledged yet (by token): still taken, as they may
   * act until they hear of it or their lease runs out (steal.ts).
   */
  victims: Map<number, Holder>
}

export function newResource(): Resource {
  return {
    holders: new Map(),
    queue: [],
    seen: new Map(),
    closed: 0,
    closedShared: new Set(),
    delayed: new Map(),
    victims: new Map(),
  }
}

/** The holders in node order (every walk over them is in this order: canonical). */
export const holdersOf = (r: Resource): Holder[] =>
  [...r.holders.values()].sort((a, b) => compareNodeIds(a.node, b.node))

/** What a new grant must fit beside: the holders, the entries in their lock-delay, a steal's victims. */
export const blockersOf = (r: Resource): Hold[] => [
  ...holdersOf(r),
  ...r.delayed.values(),
  ...victimsOf(r),
]

/** A steal's victims not yet acknowledged, in token order. */
export const victimsOf = (r: Resource): Holder[] =>
  [...r.victims.values()].sort((a, b) => a.token - b.token)

/** Token `token`, held as `hold`, is over (released, expired, stolen). */
export function close(r: Resource, token: number, hold: Hold): void {
  if (isExclusive(hold)) {
    r.closed = Math.max(r.closed, token)
    for (const t of r.closedShared) if (t <= r.closed) r.closedShared.delete(t)
  } else if (token > r.closed) r.closedShared.add(token)
}

/**
 * Whether a claim of `token` is stale: its entry ended already. An exclusive entry is over once a
 * later token ended (it was granted after it); a shared one, once it ended itself or a later
 * exclusive one did.
 */
export function isClosed(r: Resource, token: number, hold: Hold): boolean {
  if (token <= r.closed) return true
  if (!isExclusive(hold)) return r.closedShared.has(token)
  for (const t of r.closedShared) if (t >= token) return true
  return false
}

const holderShape = (h: Holder): Snapshot => ({
  node: h.node,
  token: h.token,
  seq: h.seq,
  at: h.at,
  ...(h.burst !== undefined ? { burst: h.burst } : {}),
  ...wantJson(holdOf(h)),
})

/** The resource as canonical plain data. */
export function resourceSnapshot(r: Resource): Snapshot {
  return {
    holders: idMap(r.holders, holderShape),
    // The order counts: the policy picks from it.
    queue: r.queue.map((q) => ({ node: q.node, seq: q.seq, at: q.at, ...wantJson(q) })),
    seen: idMap(r.seen, (seq) => seq),
    closed: r.closed,
    closedShared: [...r.closedShared].sort((a, b) => a - b),
    delayed: [...r.delayed].sort(([a], [b]) => a - b).map(([t, h]) => [t, wantJson(holdOf(h))]),
    // Only while a steal waits: the snapshots of runs without one are what they were.
    ...(r.victims.size > 0 ? { victims: victimsOf(r).map(holderShape) } : {}),
  }
}

type HolderData = { node: NodeId; token: number; seq: number; at: number; burst?: number } & Hold

const holderFrom = (h: HolderData): Holder => ({
  node: h.node,
  token: h.token,
  seq: h.seq,
  at: h.at,
  ...(h.burst !== undefined ? { burst: h.burst } : {}),
  ...holdOf(h),
})

/** What `resourceSnapshot` gave, as a live resource again (for `restore()`). */
export function resourceFrom(snapshot: Snapshot): Resource {
  const s = snapshotFields(snapshot, 'centralized()', [
    'holders',
    'queue',
    'seen',
    'closed',
    'closedShared',
    'delayed',
  ]) as {
    holders: Array<[NodeId, HolderData]>
    queue: Array<Waiting>
    seen: Array<[NodeId, number]>
    closed: number
    closedShared: number[]
    delayed: Array<[number, Hold]>
    victims?: HolderData[]
  }
  return {
    holders: new Map(s.holders.map(([id, h]) => [id, holderFrom(h)])),
    queue: s.queue.map((q) => ({ node: q.node, seq: q.seq, at: q.at, ...wantOf(q) })),
    seen: new Map(s.seen),
    closed: s.closed,
    closedShared: new Set(s.closedShared),
    delayed: new Map(s.delayed.map(([token, h]) => [token, holdOf(h)])),
    victims: new Map((s.victims ?? []).map((v) => [v.token, holderFrom(v)])),
  }
}
