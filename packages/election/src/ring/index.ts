export type { RingEvent } from './events.js'
export type { CoordinatorPass, ElectionPass, RingMessage } from './messages.js'
export type { RingElectionOptions, RingOptions } from './options.js'
export { ringElection } from './protocol.js'
