export { DEFAULT_QUERY_TIMEOUT_MS, type LockQueryOptions } from './cluster-query.js'
export {
  LockAbortError,
  LockManagerClosedError,
  LockNotSupportedError,
  LockQueryTimeoutError,
} from './errors.js'
export {
  createLockManager,
  type Lock,
  type LockGrantedCallback,
  type LockInfo,
  type LockManager,
  type LockManagerOptions,
  type LockManagerSnapshot,
} from './manager.js'
export type { LockOptions } from './rules.js'
