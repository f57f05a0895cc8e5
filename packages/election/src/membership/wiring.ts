/**
 * `compose` wiring maps between the majority election and the agreed membership on one node, by
 * the events' shapes (checked: a wiring takes any node's events, typed or not):
 *
 * ```ts
 * compose(
 *   { election: majorityElection({ awaitView: true })(self), membership: agreedMembership(opts)(self) },
 *   { wiring: [
 *     { from: 'election', to: 'membership', map: electionToMembership },
 *     { from: 'membership', to: 'election', map: membershipToElection },
 *   ] },
 * )
 * ```
 */
import { arrayOf, isNodeId, isNonNegInt, oneOf, shape } from '@sd/transport'
import type { ElectionRequest } from '../contract.js'
import type { SwimRequest } from '../detector/swim/protocol.js'
import type { MembershipRequest } from './events.js'

const isLeader = shape({ type: oneOf('leader'), leader: isNodeId, term: isNonNegInt })
const isLost = shape({ type: oneOf('leader-lost'), term: isNonNegInt })
const isSilent = shape({ type: oneOf('member-silent'), node: isNodeId })
const isDeadLeft = shape({ type: oneOf('member-left'), node: isNodeId, reason: oneOf('dead') })
const isView = shape({
  type: oneOf('view', 'acknowledged'),
  view: isNonNegInt,
  members: arrayOf(isNodeId),
})

/**
 * The election's `leader` / `leader-lost` drive the view changes (the leader proposes them), and
 * a member the leader reports silent (`member-silent`, option `silentAfterMs`) is removed.
 */
export function electionToMembership(event: unknown): MembershipRequest | undefined {
  if (isLeader(event)) return { type: 'leader', leader: event.leader, term: event.term }
  if (isLost(event)) return { type: 'leader-lost', term: event.term }
  if (isSilent(event)) return { type: 'remove', id: event.node }
  return undefined
}

/**
 * Every installed `view` becomes the election's view request: it counts a majority of the view's
 * members, and a node out of it (a joiner not yet in, a member that left or was removed) is
 * passive. Every `acknowledged` (this node accepted the next view, not yet committed) becomes
 * `view-accepted`: until the view is installed the node counts a majority of both.
 */
export function membershipToElection(event: unknown): ElectionRequest | undefined {
  if (!isView(event)) return undefined
  const type = event.type === 'view' ? 'view' : 'view-accepted'
  return { type, view: event.view, members: [...event.members] }
}

/**
 * Every installed `view` becomes SWIM's `admit` request: only the agreed members enter its member
 * list (gossip of anyone else is refused), and a member the view dropped leaves it.
 */
export function membershipToSwim(event: unknown): SwimRequest | undefined {
  if (!isView(event) || event.type !== 'view') return undefined
  return { type: 'admit', members: [...event.members] }
}

/**
 * SWIM's verdict that a member is dead (`member-left` with reason `dead`) becomes the membership's
 * `remove` request (it is proposed again until a view leaves the member out). A graceful leave is
 * the leaver's own `leave` request, not this.
 */
export function swimToMembership(event: unknown): MembershipRequest | undefined {
  if (isDeadLeft(event)) return { type: 'remove', id: event.node }
  return undefined
}
