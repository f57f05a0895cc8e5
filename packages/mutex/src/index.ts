// @sd/mutex: distributed mutual exclusion. Each algorithm is a pure Protocol over @sd/transport.

export {
  type AbortSignalLike,
  type AcquireAllOptions,
  type AcquireOptions,
  type AsyncDisposableLike,
  asyncDispose,
  createLockManager,
  createMutex,
  type Lock,
  LockAbortError,
  type LockGrantedCallback,
  type LockInfo,
  type LockManager,
  LockManagerClosedError,
  type LockManagerOptions,
  type LockManagerSnapshot,
  LockNotSupportedError,
  type LockOptions,
  type LockQueryOptions,
  LockQueryTimeoutError,
  LockUnavailableError,
  type MultiHandle,
  type Mutex,
  type MutexAlgorithm,
  MutexClosedError,
  type MutexHandle,
  type MutexOptions,
  type PlatformAbortSignal,
  ReentrancyLimitError,
} from './api/index.js'
export {
  type CentralizedEvent,
  type CentralizedFactory,
  type CentralizedMessage,
  type CentralizedOptions,
  type CentralizedRequest,
  type CoordinatorLeaseRequest,
  type CoordinatorLostRequest,
  type CoordinatorRequest,
  centralized,
  centralizedCodec,
  electionToLock,
  PERMITS_BURST,
  type ReaderPolicy,
  TOKENS_PER_TERM,
  type WireCodec,
  WRITERS_FIRST_BURST,
} from './centralized/index.js'
export {
  type CrashAt,
  checkMutualExclusion,
  type MutexVerdict,
  type TimedEvent,
} from './check.js'
export {
  type AcquiredEvent,
  DEFAULT_RESOURCE,
  entryKind,
  type LockFeature,
  type LockMode,
  type LockQueryRequest,
  type LockStateEntry,
  type LockStateEvent,
  type LockStateResource,
  lockFeaturesOf,
  type MutexEvent,
  type MutexRequest,
  type PermitCount,
  type ReleasedEvent,
  resourceOf,
  type UnavailableEvent,
  type ViewRequest,
  type WithLockFeatures,
  withLockFeatures,
} from './contract.js'
export {
  CoordinatorUnreachableError,
  LeaseLostError,
  MutexAbortedError,
  MutexTimeoutError,
  StaleTokenError,
  UnsupportedLockFeatureError,
} from './errors.js'
export * from './fence/index.js'
export { lockHistoryFromTrace } from './history.js'
export * from './lamport/index.js'
export * from './maekawa/index.js'
export * from './quorum/index.js'
export * from './ricart-agrawala/index.js'
export * from './token-ring/index.js'
