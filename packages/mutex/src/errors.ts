import { InvalidArgumentError, SdError } from '@sd/transport'

/** Options outside their domain reuse the transport's class, so one code means one thing. */
export { InvalidArgumentError }

/** An acquire did not enter the critical section in time. */
export class MutexTimeoutError extends SdError {
  readonly resource: string
  constructor(resource: string, ms: number) {
    super('ERR_MUTEX_TIMEOUT', `could not acquire ${JSON.stringify(resource)} within ${ms} ms`)
    this.resource = resource
  }
}

/** An acquire was given up by its caller (an AbortSignal) before it entered. */
export class MutexAbortedError extends SdError {
  readonly resource: string
  constructor(resource: string, reason?: unknown) {
    super('ERR_MUTEX_ABORTED', `acquiring ${JSON.stringify(resource)} was aborted`, {
      cause: reason,
    })
    this.resource = resource
  }
}

/** The coordinator gave no answer within the timeout: it is dead or cut off, not refusing. */
export class CoordinatorUnreachableError extends SdError {
  readonly coordinator: string | number
  constructor(coordinator: string | number, ms: number) {
    super(
      'ERR_COORDINATOR_UNREACHABLE',
      `coordinator ${JSON.stringify(coordinator)} did not answer within ${ms} ms: wait for a new coordinator (an election) or retry`,
    )
    this.coordinator = coordinator
  }
}

/** The holder's lease ran out (or was revoked): it no longer holds the resource. */
export class LeaseLostError extends SdError {
  readonly resource: string
  readonly token: number
  constructor(resource: string, token: number) {
    super(
      'ERR_LEASE_LOST',
      `lease on ${JSON.stringify(resource)} (token ${token}) was lost: stop using the resource and acquire it again`,
    )
    this.resource = resource
    this.token = token
  }
}
