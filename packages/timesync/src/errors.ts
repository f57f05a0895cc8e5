/**
 * The package's typed errors outside NTP (whose own are in ntp/errors.ts). Arguments outside
 * their domain are `@sd/transport`'s `InvalidArgumentError`, so one code means one thing.
 */
import { SdError } from '@sd/transport'

/** Why an interval clock cannot bound the time: see `IntervalStatus`. */
export type UnsynchronizedStatus = 'never-synced' | 'expired' | 'stepped'

/** A synchronized interval was asked of a clock that cannot bound the time now. */
export class ClockUnsynchronizedError extends SdError {
  readonly status: UnsynchronizedStatus
  constructor(status: UnsynchronizedStatus, detail: string) {
    super('ERR_CLOCK_UNSYNCHRONIZED', `the clock is not synchronized (${status}): ${detail}`)
    this.status = status
  }
}

/** The caller gave a `waitUntilAfter` up (its AbortSignal fired); `cause` is the signal's reason. */
export class TimeWaitAbortedError extends SdError {
  /** The time that was waited for, ms. */
  readonly targetMs: number
  constructor(targetMs: number, reason?: unknown) {
    super('ERR_TIME_WAIT_ABORTED', `the wait until after ${targetMs} was aborted`, {
      cause: reason,
    })
    this.targetMs = targetMs
  }
}

/** Why a holder can no longer be sure of its lease (see `IntervalLease`). */
export type LeaseLostReason = 'ended' | 'unsynchronized' | 'stepped' | 'released'

/**
 * A lease's holder may not act: its latest reached the end (`ended`), its time source cannot bound
 * the time (`unsynchronized`, `status` says why), it saw a wall-clock step during the hold
 * (`stepped`), or the holder let it go (`released`).
 */
export class LeaseLostError extends SdError {
  readonly reason: LeaseLostReason
  /** The lease's end, reference ms. */
  readonly end: number
  readonly status: UnsynchronizedStatus | undefined
  constructor(reason: LeaseLostReason, end: number, status?: UnsynchronizedStatus) {
    super(
      'ERR_LEASE_LOST',
      `the lease ending at ${end} is lost (${reason}${status === undefined ? '' : `: ${status}`})`,
    )
    this.reason = reason
    this.end = end
    this.status = status
  }
}
