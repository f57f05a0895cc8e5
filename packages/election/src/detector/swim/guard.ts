/**
 * What a SWIM node refuses to take from a peer's gossip, so that one member that lies (or one
 * with a bug) can neither grow the member list without bound nor push live members out:
 * - a stranger when the list is full (`maxMembers`), or one the agreed membership has not
 *   admitted (an `admit` request set the admitted ids). Without admission, strangers enter by
 *   gossip up to the cap: a member that gossips made-up ids fills the list with them, and the
 *   failed probes of them cost the probers' local health (they slow down). Admitting strangers
 *   first-hand only (from their own messages) would stop that, but slows every honest join to
 *   one round of the joiner's probes: the churn tests' convergence bound fails;
 * - news of a member in an incarnation far ahead of any it could have reached by refuting
 *   (`MAX_INCARNATION_JUMP`), and news of this node at the incarnation ceiling, which it could
 *   not refute (its refutation would not parse at its peers: evicted for good);
 * - a death of a member this node holds alive, or suspects for less than its own suspicion
 *   timeout: it becomes a suspicion here, which the member, if alive, refutes, and this node
 *   declares the death on its own timer. A liar's `dead` then costs a suspicion, not a death;
 *   an honest death reaches every node by the suspicions anyway, a little later than the first
 *   declarer's (their suspicions started a gossip hop apart);
 * - with admission through the agreed membership, a leave of a member reported by anyone but
 *   the member itself: its leave is the agreed view's to say.
 * The transport's sender is taken as authentic (the group's key, `@sd/transport/udp`); the
 * `from` inside an update is only what the sender claims.
 */
import type { NodeId } from '@sd/transport'
import { isGone, type Member, type MemberUpdate } from './members.js'
import { MAX_INCARNATION } from './messages.js'

/** Why news was refused (the `refused` event). */
export type SwimRefusal =
  /** A stranger, and the member list holds maxMembers entries already. */
  | 'full'
  /** A stranger the agreed membership has not admitted. */
  | 'not-admitted'

  /** An incarnation this node could not have reached honestly, or could not refute. */
  | 'incarnation'
  /** A death with no ripe suspicion here: taken as a suspicion instead. */
  | 'unripe-death'
  /** A leave relayed by another member while the agreed membership admits the leaver. */
  | 'relayed-leave'

/**
 * How far ahead of the incarnation this node knows news of a member may be: a member raises its
 * incarnation by one per refutation, so a node that missed some sees small jumps, never 2^20.
 */
export const MAX_INCARNATION_JUMP = 2 ** 20

/** Whether news about a member this node holds is beyond belief (see the file's comment). */
export function implausible(u: MemberUpdate, known: Member | undefined): boolean {
  return known !== undefined && u.incarnation > known.incarnation + MAX_INCARNATION_JUMP
}

/** News of this node it could not refute: its refutation would pass the ceiling peers accept. */
export const unrefutable = (u: MemberUpdate) => u.incarnation >= MAX_INCARNATION

/**
 * A death reported by another member is taken only when this node's own suspicion of the member
 * in that incarnation has run its timeout (`timeoutMs`, with the confirmations it has): when its
 * own timer is due anyway (less than a ms to go: rounding).
 */
export function ripeDeath(
  u: MemberUpdate,
  known: Member,
  suspicion: { incarnation: number; startMs: number } | undefined,
  nowMs: number,
  timeoutMs: number,
): boolean {
  return (
    known.state === 'suspect' &&
    suspicion !== undefined &&
    suspicion.incarnation === u.incarnation &&
    timeoutMs - (nowMs - suspicion.startMs) < 1
  )
}

/** What `doubt` needs to know of the node's state. */
export interface Belief {
  /** The ids the agreed membership admits; undefined: any. */
  admitted: ReadonlySet<NodeId> | undefined
  /** This node's suspicion of the member the news is about, if any. */
  suspicion: { incarnation: number; startMs: number } | undefined
  nowMs: number
  /** The timeout of that suspicion now (its confirmations counted); Infinity without one. */
  timeoutMs: number
}

/**
 * Why news `u` that `sender` passed on is not taken as it is, or undefined: `known` is what this
 * node holds of the member (news of itself is the protocol's: `unrefutable`).
 */
export function doubt(
  u: MemberUpdate,
  known: Member | undefined,
  sender: NodeId,
  belief: Belief,
): SwimRefusal | undefined {
  const { admitted } = belief
  if (admitted !== undefined && !admitted.has(u.node)) {
    return known === undefined && u.kind === 'alive' ? 'not-admitted' : undefined
  }
  if (implausible(u, known)) return 'incarnation'
  if (known === undefined || isGone(known.state) || u.incarnation < known.incarnation) return
  if (u.kind === 'left' && admitted !== undefined && sender !== u.node) return 'relayed-leave'
  if (u.kind === 'dead' && !ripeDeath(u, known, belief.suspicion, belief.nowMs, belief.timeoutMs)) {
    return 'unripe-death'
  }
  return undefined
}

/** The `{ type: 'admit', members }` request, checked: the ids, or undefined if malformed. */
export function admittedOf(req: unknown, isId: (v: unknown) => v is NodeId): NodeId[] | undefined {
  const members = (req as { members?: unknown })?.members
  if (!Array.isArray(members) || members.length > 1_000_000 || !members.every(isId)) {
    return undefined
  }
  return members
}
