// The centralized mutex: one coordinator, a FIFO queue per resource, fencing tokens, leases.
export type { CentralizedEvent } from './events.js'
export type { CentralizedMessage } from './messages.js'
export { type CentralizedOptions, TOKENS_PER_TERM } from './options.js'
export { centralized } from './protocol.js'
export type {
  CentralizedRequest,
  CoordinatorLeaseRequest,
  CoordinatorLostRequest,
  CoordinatorRequest,
} from './requests.js'
export { electionToLock } from './wiring.js'
