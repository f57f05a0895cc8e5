export {
  type AbortSignalLike,
  createElection,
  type Election,
  type ElectionOptions,
  type LeaderView,
  type ObserveOptions,
  type WaitOptions,
} from './api/index.js'
export { type BullyEvent, type BullyMessage, type BullyOptions, bully } from './bully/index.js'
export {
  type ChangRobertsEvent,
  type ChangRobertsMessage,
  type ChangRobertsOptions,
  changRoberts,
} from './chang-roberts/index.js'
export {
  agreedLeader,
  checkElection,
  type ElectionCheckOptions,
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
  type FailureDetector,
  phiDetector,
  timeoutDetector,
} from './detector/failure-detector.js'
export {
  type HeartbeatOptions,
  type HeartbeatSettings,
  heartbeatSettings,
  LeaderWatch,
} from './detector/heartbeat.js'
export {
  PhiAccrual,
  type PhiAccrualSnapshot,
  type PhiOptions,
  type PhiSettings,
  phiOf,
  phiSettings,
  silenceForPhi,
} from './detector/phi-accrual.js'
export { type PhiEvent, PhiWatch, phiAccrual } from './detector/phi-watch.js'
export {
  type MemberState,
  type MemberUpdate,
  type SwimEvent,
  type SwimMessage,
  type SwimOptions,
  type SwimRefusal,
  type SwimRequest,
  type SwimSettings,
  swim,
} from './detector/swim/index.js'
export {
  ElectionAbortedError,
  ElectionClosedError,
  ElectionTimeoutError,
  InvalidArgumentError,
  NotLeaderError,
  TransferFailedError,
  TransferInProgressError,
  UnknownTargetError,
} from './errors.js'
export {
  type MajorityElectionOptions,
  type MajorityEvent,
  type MajorityMessage,
  type MajorityOptions,
  majorityElection,
  type StepDownReason,
  type TransferFailure,
} from './majority/index.js'
export {
  type AgreedMembershipOptions,
  agreedMembership,
  type CheckViewsOptions,
  checkViews,
  electionToMembership,
  type MemberAddress,
  type MembershipEvent,
  type MembershipMessage,
  type MembershipRequest,
  membershipToElection,
  membershipToSwim,
  swimToMembership,
  type ViewEvent,
  type ViewRecord,
  type ViewVerdict,
  type ViewViolation,
} from './membership/index.js'
export {
  type CoordinatorPass,
  type ElectionPass,
  type RingElectionOptions,
  type RingEvent,
  type RingMessage,
  type RingOptions,
  ringElection,
} from './ring/index.js'
export { nextTerm, observeTerm, storedTerm } from './terms.js'
export {
  type Graph,
  graphOf,
  randomConnectedGraph,
  type YoyoEvent,
  type YoyoMessage,
  type YoyoOptions,
  type YoyoRole,
  yoyo,
} from './yoyo/index.js'
