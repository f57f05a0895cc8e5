// Leader election by majority vote: no leader in a minority, one leader per term, durable terms.
export type {
  MajorityEvent,
  MajorityMessage,
  StepDownReason,
} from './messages.js'
export type { MajorityElectionOptions } from './options.js'
export { majorityElection } from './protocol.js'
