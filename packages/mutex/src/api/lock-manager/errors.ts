import { SdError } from '@sd/transport'

/**
 * A request the Web Locks rules forbid (a reserved name, steal with ifAvailable...). Its `name` is
 * `'NotSupportedError'`, as the DOMException a browser's `navigator.locks` rejects with.
 */
export class LockNotSupportedError extends SdError {
  constructor(message: string) {
    super('ERR_LOCK_NOT_SUPPORTED', message)
    this.name = 'NotSupportedError'
  }
}

/**
 * The lock a request's callback held was taken from it (a steal, a lost lease): the request
 * rejects with this, while the callback may still run. Its `name` is `'AbortError'`, as in a
 * browser; `cause` is the `LeaseLostError`.
 */
export class LockAbortError extends SdError {
  readonly lockName: string
  constructor(lockName: string, cause: unknown) {
    super(
      'ERR_LOCK_ABORTED',
      `the lock ${JSON.stringify(lockName)} was taken from this holder: stop using what it guards`,
      { cause },
    )
    this.name = 'AbortError'
    this.lockName = lockName
  }
}

/**
 * A cluster-wide `query()` heard no answer from the coordinator within `timeoutMs` (the QUERY or
 * its answer was lost, or the coordinator is down or changing): it is not sent again.
 */
export class LockQueryTimeoutError extends SdError {
  readonly timeoutMs: number
  constructor(timeoutMs: number) {
    super(
      'ERR_LOCK_QUERY_TIMEOUT',
      `query: no answer from the coordinator within ${timeoutMs} ms: try again, or use a longer timeoutMs`,
    )
    this.timeoutMs = timeoutMs
  }
}

/** The lock manager was closed while a cluster-wide `query()` waited for its answer. */
export class LockManagerClosedError extends SdError {
  constructor() {
    super('ERR_LOCK_MANAGER_CLOSED', 'query: the lock manager was closed before the answer came')
  }
}
