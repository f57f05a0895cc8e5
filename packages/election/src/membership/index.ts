// The agreed view of the group: joins, graceful leaves and removals, committed through the majority leader.
export {
  type CheckViewsOptions,
  checkViews,
  type ViewVerdict,
  type ViewViolation,
} from './check.js'
export type { MembershipEvent, MembershipRequest } from './events.js'
export type { Change, MembershipMessage } from './messages.js'
export type { AgreedMembershipOptions } from './options.js'
export { agreedMembership } from './protocol.js'
export type { MemberAddress, ViewEvent, ViewRecord } from './view.js'
export {
  electionToMembership,
  membershipToElection,
  membershipToSwim,
  swimToMembership,
} from './wiring.js'
