/**
 * The member list and SWIM's rules for news about a member: incarnation numbers order the news
 * about one member, so an old report never undoes a newer one, and only the member itself raises
 * its incarnation (to refute a suspicion). A member that is dead or has left stays as a tombstone
 * (`since`: when it went) until `forget`, so late news of it in an older incarnation is stale
 * instead of bringing it back; only the member itself, in a higher incarnation, returns.
 */
import { type NodeId, sortNodeIds } from '@sd/transport'

/** `left`: dead by its own announcement (a graceful leave): nobody suspects it first. */
export type MemberState = 'alive' | 'suspect' | 'dead' | 'left'

/** News about `node` in `incarnation`, as `from` reported it; piggybacked on every message. */
export interface MemberUpdate {
  kind: MemberState
  node: NodeId
  incarnation: number
  from: NodeId
}

export interface Member {
  state: MemberState
  incarnation: number
  /** When it became a tombstone (dead or left), monotonic ms; absent while it is a member. */
  since?: number
}

/**
 * What an update did: `stale` (older than what we know, or not a member), `confirm` (the
 * suspicion we hold, reported again), or the state the member was in before it took effect.
 */
export type Applied = 'stale' | 'confirm' | { before: MemberState }

/** Gone from the view: dead or left. */
export const isGone = (state: MemberState) => state === 'dead' || state === 'left'

export class MemberList {
  private readonly members = new Map<NodeId, Member>()

  constructor(peers: readonly NodeId[]) {
    for (const peer of peers) this.members.set(peer, { state: 'alive', incarnation: 0 })
  }

  get(node: NodeId): Member | undefined {
    return this.members.get(node)
  }

  /** Entries held, tombstones included. */
  get size(): number {
    return this.members.size
  }

  /** Members neither dead nor left, ascending. */
  live(): NodeId[] {
    return sortNodeIds(this.members.keys()).filter((id) => !isGone(this.members.get(id)!.state))
  }

  /** How many members are neither dead nor left (`live().length`, without the sorted list). */
  liveCount(): number {
    let n = 0
    for (const m of this.members.values()) if (!isGone(m.state)) n++
    return n
  }

  /** Adds a node we did not know (a join, or news of one); the caller checked the bound. */
  admit(node: NodeId, state: MemberState, incarnation: number, nowMs: number): void {
    this.members.set(
      node,
      isGone(state) ? { state, incarnation, since: nowMs } : { state, incarnation },
    )
  }

  /** Applies an update about another member (news about self is the protocol's: it refutes). */
  apply(u: MemberUpdate, nowMs = 0): Applied {
    const cur = this.members.get(u.node)
    if (cur === undefined) return 'stale'
    const before = cur.state
    if (u.kind === 'alive') {
      // Only a higher incarnation clears a suspicion, a death or a leave: the member said so.
      if (u.incarnation <= cur.incarnation) return 'stale'
    } else if (u.kind === 'suspect') {
      if (isGone(before) || u.incarnation < cur.incarnation) return 'stale'
      if (before === 'suspect' && u.incarnation === cur.incarnation) return 'confirm'
    } else if (isGone(before) || u.incarnation < cur.incarnation) return 'stale'
    this.admit(u.node, u.kind, u.incarnation, nowMs)
    return { before }
  }

  /** Drops the tombstones older than `cutoffMs`; returns their ids. */
  forget(cutoffMs: number): NodeId[] {
    const out: NodeId[] = []
    for (const [node, m] of this.members) {
      if (m.since !== undefined && m.since <= cutoffMs) out.push(node)
    }
    for (const node of out) this.members.delete(node)
    return out
  }

  snapshot(): { node: NodeId; state: MemberState; incarnation: number; since?: number }[] {
    return sortNodeIds(this.members.keys()).map((node) => ({ node, ...this.members.get(node)! }))
  }
}
