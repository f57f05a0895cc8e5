export {
  createDeadlockDetector,
  type DeadlockDetector,
  type DeadlockDetectorOptions,
  type DeadlockReport,
  type VictimRule,
} from './api/detector.js'
export {
  checkDeadlocks,
  cycleKey,
  type DeadlockVerdict,
  type TimedDeadlockEvent,
} from './check.js'
export type {
  DeadlockEvent,
  DeadlockManagerEvent,
  DeadlockRequest,
  IgnoredEvent,
  PhantomEvent,
  ProcessEvent,
  ProcessSpec,
  ProcessStep,
  WaitEndedEvent,
  WaitsForEvent,
} from './contract.js'
export type { CentralizedOptions } from './detect/centralized.js'
export {
  type CmhGraphEvent,
  type CmhGraphMsg,
  type CmhGraphOptions,
  type CmhGraphRequest,
  cmhOnGraph,
} from './detect/cmh-graph.js'
export * from './graph/index.js'
export type { ManagerMsg, PathEntry, ProcRef, SiteWait } from './manager/messages.js'
export {
  type ResourceManagerOptions,
  type ResourceManagerProtocol,
  resourceManager,
} from './manager/protocol.js'
export type { Prevention } from './manager/resources.js'
