// The quorum mutex of n coordinators (m > n/2 grants), and its probability of violation.
export type { QuorumEvent, QuorumMutexEvent } from './events.js'
export type { QuorumMessage, QuorumMutexMessage } from './messages.js'
export type { QuorumMutexOptions } from './options.js'
export { logViolationProbability, violationProbability } from './probability.js'
export { quorumMutex } from './protocol.js'
