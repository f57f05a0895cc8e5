import { SdError } from '@sd/transport'

/** The lock was closed: a pending acquire is given up, and no new one is accepted. */
export class MutexClosedError extends SdError {
  readonly resource: string
  constructor(resource: string) {
    super('ERR_MUTEX_CLOSED', `the lock was closed while acquiring ${JSON.stringify(resource)}`)
    this.resource = resource
  }
}

/** An `ifAvailable` acquire could not be granted at once: nothing waits for it. */
export class LockUnavailableError extends SdError {
  readonly resource: string
  constructor(resource: string) {
    super(
      'ERR_LOCK_UNAVAILABLE',
      `${JSON.stringify(resource)} is not available now (ifAvailable): nothing was acquired`,
    )
    this.resource = resource
  }
}

/** An owner asked for a resource it holds more times than the lock's `reentrancy.limit`. */
export class ReentrancyLimitError extends SdError {
  readonly resource: string
  readonly limit: number
  constructor(resource: string, limit: number) {
    super(
      'ERR_REENTRANCY_LIMIT',
      `the owner already holds ${JSON.stringify(resource)} ${limit} times (reentrancy.limit): release before acquiring again`,
    )
    this.resource = resource
    this.limit = limit
  }
}
