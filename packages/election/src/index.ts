export {
  agreedLeader,
  checkElection,
  type ElectionVerdict,
  type ElectionViolation,
  type TimedEvent,
} from './check.js'
export {
  bestOf,
  byIdOnly,
  compareCandidates,
  type ElectionEvent,
  type ElectionRequest,
  type LeaderEvent,
  type LeaderLostEvent,
  type Priorities,
} from './contract.js'
export {
  type HeartbeatOptions,
  type HeartbeatSettings,
  heartbeatSettings,
  LeaderWatch,
} from './detector/heartbeat.js'
export { nextTerm, observeTerm, storedTerm } from './terms.js'
