export type {
  CoordinatorPass,
  ElectionPass,
  RingEvent,
  RingMessage,
} from './messages.js'
export type { RingElectionOptions } from './options.js'
export { ringElection } from './protocol.js'
