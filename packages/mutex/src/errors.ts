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
  /** Why, when the protocol said (`'stolen'`: a `steal` acquire took the resource). */
  readonly reason: string | undefined
  constructor(resource: string, token: number, reason?: string) {
    super(
      'ERR_LEASE_LOST',
      `lease on ${JSON.stringify(resource)} (token ${token}) was lost${reason === undefined ? '' : ` (${reason})`}: stop using the resource and acquire it again`,
    )
    this.resource = resource
    this.token = token
    this.reason = reason
  }
}

/**
 * An acquire asked for what the lock's algorithm does not honour (`ifAvailable` or `steal`; see
 * `lockFeaturesOf`): unlike `shared` or `permits`, these cannot be granted as a safer entry.
 */
export class UnsupportedLockFeatureError extends SdError {
  readonly feature: string
  constructor(feature: string) {
    super(
      'ERR_UNSUPPORTED_LOCK_FEATURE',
      `the lock's algorithm does not honour ${JSON.stringify(feature)} (it is not among its lockFeatures): choose an algorithm marked with it, or do without`,
    )
    this.feature = feature
  }
}

/**
 * A fenced resource refused a token older than one it already accepted: the lock it was granted
 * under has passed to a newer holder (a pause, a lost lease). `newest` is the token that fenced it.
 */
export class StaleTokenError extends SdError {
  /** The fence's key (the resource name) the token was checked against. */
  readonly key: string
  readonly kind: 'read' | 'write'
  readonly token: number
  /** The newest token accepted that this one is older than. */
  readonly newest: number
  /** Whether `newest` was accepted for a write or for a read. */
  readonly newestKind: 'read' | 'write'
  constructor(
    key: string,
    kind: 'read' | 'write',
    token: number,
    newest: number,
    newestKind: 'read' | 'write',
  ) {
    super(
      'ERR_STALE_TOKEN',
      `${kind} of ${JSON.stringify(key)} with token ${token} refused: a ${newestKind} with the newer token ${newest} was accepted; acquire the lock again`,
    )
    this.key = key
    this.kind = kind
    this.token = token
    this.newest = newest
    this.newestKind = newestKind
  }
}
