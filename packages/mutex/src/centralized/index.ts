// The centralized mutex: one coordinator, a queue and holders per resource, fencing tokens, leases.
export { centralizedCodec, type WireCodec } from './codec.js'
export type { CentralizedEvent } from './events.js'
export type { ReaderPolicy } from './grant-order.js'
export type { CentralizedMessage } from './messages.js'
export {
  type CentralizedOptions,
  PERMITS_BURST,
  TOKENS_PER_TERM,
  WRITERS_FIRST_BURST,
} from './options.js'
export { type CentralizedFactory, centralized } from './protocol.js'
export type {
  CentralizedRequest,
  CoordinatorLeaseRequest,
  CoordinatorLostRequest,
  CoordinatorRequest,
} from './requests.js'
export { electionToLock } from './wiring.js'
