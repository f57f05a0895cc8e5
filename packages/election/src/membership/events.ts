import type { NodeId } from '@sd/transport'
import type { ViewEvent } from './view.js'

/** What the agreed membership emits. */
export type MembershipEvent =
  /** This node installed a view (every node, in order, without gaps). */
  | ViewEvent
  /**
   * This node is out of the group from view `view` on (`leave`: it asked; `removed`: it was
   * declared dead) and takes no further part: it answers nothing, so nobody waits for it.
   */
  | { type: 'left'; view: number; reason: 'leave' | 'removed' }
  /**
   * This node, a member of view `view - 1`, accepted view `view` proposed by `leader` in `term`
   * (the acknowledgement the commit counts; the checker reads it).
   */
  | { type: 'acknowledged'; view: number; members: NodeId[]; leader: NodeId; term: number }
  /** This node, leader of `term`, committed view `view`: a majority of the previous view accepted it. */
  | { type: 'committed'; view: number; members: NodeId[]; term: number }
  /**
   * The election made this node leader of `term`, but it is not a member (a joiner not yet in,
   * or a node out of the group): it cannot drive view changes. Only an election that does not
   * follow the views can do that (`membershipToElection` makes such a node passive): then wire it
   * to the election's `resign`, so that a member leads.
   */
  | { type: 'not-member'; term: number }
  /** A message or request that was not acted upon, and why. */
  | { type: 'ignored'; from: NodeId; reason: string }

/** What a node is asked locally. */
export type MembershipRequest =
  /** Who leads the election now (wire the election's `leader` events here). */
  | { type: 'leader'; leader: NodeId; term: number }
  /** The election's leader is not trusted any more (its `leader-lost` events). */
  | { type: 'leader-lost'; term: number }
  /** This member leaves the group gracefully: it announces it, and stops once a view without it is committed. */
  | { type: 'leave' }
  /** Remove member `id` (declared dead by a failure detector, or by the user). */
  | { type: 'remove'; id: NodeId }
