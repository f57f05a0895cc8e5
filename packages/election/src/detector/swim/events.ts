import type { NodeId } from '@sd/transport'
import type { SwimRefusal } from './guard.js'
import type { MemberState } from './members.js'

/**
 * What a SWIM node emits. The evidence: `from` is the member whose report changed our view (the
 * prober that suspected, the member that declared a death, or the member itself refuting), and
 * `incarnation` the incarnation the report is about.
 */
export type SwimEvent =
  | { type: 'suspect'; node: NodeId; incarnation: number; from: NodeId }
  /** A suspected (or declared dead) member is alive after all, in a higher incarnation. */
  | { type: 'alive'; node: NodeId; incarnation: number; from: NodeId }
  /**
   * Declared dead: the suspicion ran out here (`from` is self; `confirmations` is how many other
   * members had confirmed it), or a member's dead report arrived.
   */
  | { type: 'dead'; node: NodeId; incarnation: number; from: NodeId; confirmations: number }
  /** This node heard itself suspected or declared dead by `from`, and refutes in `incarnation`. */
  | { type: 'refute'; incarnation: number; from: NodeId }
  /** Lifeguard's local health score changed (the period and timeouts scale by score + 1). */
  | { type: 'health'; score: number }
  /**
   * This node's view of the group changed: `view` counts the changes since it started (its own
   * number, not agreed with anyone), `members` is the group now, this node included while it
   * belongs, ascending; `joined` and `left` what changed. The agreed membership's event shape.
   */
  | { type: 'view'; view: number; members: NodeId[]; joined: NodeId[]; left: NodeId[] }
  /** A member entered this node's view (a join, or a dead or left member back in a higher incarnation). */
  | { type: 'member-joined'; node: NodeId; incarnation: number }
  /** A member left this node's view: it announced its leave, or it was declared dead. */
  | { type: 'member-left'; node: NodeId; incarnation: number; reason: 'left' | 'dead' }
  /**
   * News from member `from` (the sender of the message) that this node would not take: about
   * `node` in `incarnation` (guard.ts says why each `reason`). An `unripe-death` is taken as a
   * suspicion instead.
   */
  | {
      type: 'refused'
      node: NodeId
      kind: MemberState
      incarnation: number
      from: NodeId
      reason: SwimRefusal
    }
  | { type: 'ignored'; from: NodeId; reason: string }
