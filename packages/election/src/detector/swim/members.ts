/**
 * The member list and SWIM's rules for news about a member: incarnation numbers order the news
 * about one member, so an old report never undoes a newer one, and only the member itself raises
 * its incarnation (to refute a suspicion). Membership is fixed for now (the peers at start); a
 * join or leave would be handled here.
 */
import { type NodeId, sortNodeIds } from '@sd/transport'

export type MemberState = 'alive' | 'suspect' | 'dead'

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
}

/**
 * What an update did: `stale` (older than what we know, or not a member), `confirm` (the
 * suspicion we hold, reported again), or the state the member was in before it took effect.
 */
export type Applied = 'stale' | 'confirm' | { before: MemberState }

export class MemberList {
  private readonly members = new Map<NodeId, Member>()

  constructor(peers: readonly NodeId[]) {
    for (const peer of peers) this.members.set(peer, { state: 'alive', incarnation: 0 })
  }

  get(node: NodeId): Member | undefined {
    return this.members.get(node)
  }

  get size(): number {
    return this.members.size
  }

  /** Members not declared dead, ascending. */
  live(): NodeId[] {
    return sortNodeIds(this.members.keys()).filter((id) => this.members.get(id)!.state !== 'dead')
  }

  /** Applies an update about another member (news about self is the protocol's: it refutes). */
  apply(u: MemberUpdate): Applied {
    const cur = this.members.get(u.node)
    if (cur === undefined) return 'stale'
    const before = cur.state
    if (u.kind === 'alive') {
      // Only a higher incarnation clears a suspicion or a death: the member refuted it.
      if (u.incarnation <= cur.incarnation) return 'stale'
    } else if (u.kind === 'suspect') {
      if (before === 'dead' || u.incarnation < cur.incarnation) return 'stale'
      if (before === 'suspect' && u.incarnation === cur.incarnation) return 'confirm'
    } else if (before === 'dead' || u.incarnation < cur.incarnation) return 'stale'
    this.members.set(u.node, { state: u.kind, incarnation: u.incarnation })
    return { before }
  }

  snapshot(): { node: NodeId; state: MemberState; incarnation: number }[] {
    return sortNodeIds(this.members.keys()).map((node) => ({ node, ...this.members.get(node)! }))
  }
}
