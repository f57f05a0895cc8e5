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
  type CmhGraphSnapshot,
  cmhOnGraph,
} from './detect/cmh-graph.js'
export * from './graph/index.js'
export {
  DEFAULT_RESTART_AFTER_MS,
  type ManagerEvent,
  type ManagerMessage,
  type ManagerMsg,
  type PathEntry,
  type Prevention,
  type ProcRef,
  type ResourceManagerOptions,
  type ResourceManagerProtocol,
  resourceManager,
  type SiteWait,
} from './manager/index.js'
