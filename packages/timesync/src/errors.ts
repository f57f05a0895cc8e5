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
