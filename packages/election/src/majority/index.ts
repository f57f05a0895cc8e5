// Leader election by majority vote: no leader in a minority, one leader per term, durable terms.
export type { MajorityEvent, StepDownReason, TransferFailure } from './events.js'
export type { MajorityMessage } from './messages.js'
export type { MajorityElectionOptions, MajorityOptions } from './options.js'
export { majorityElection } from './protocol.js'
