/**
 * The runtime side of a lease stated in the reference's time: `lease.ts`'s arithmetic over an
 * `IntervalTimeSource`, with its clocks and timers. A hold's AbortSignal fires when the holder can
 * no longer be sure; `grantAfter` is the grantor's commit wait.
 */
import { InvalidArgumentError } from '@sd/transport'
import { LeaseLostError, TimeWaitAbortedError } from '../errors.js'
import type { SynchronizedInterval } from './interval-clock.js'
import {
  checkLeaseTerms,
  checkMs,
  type GrantVerdict,
  grantVerdict,
  type HoldVerdict,
  holdVerdict,
  type LeaseTerms,
} from './lease.js'
import type { AbortSignalLike, IntervalTimeSource } from './time-source.js'

/**
 * The platform's `AbortSignal` where the consumer's types declare one (DOM or Node), so a hold's
 * signal can go to `fetch`; else `AbortSignalLike`, so the declarations need neither.
 */
export type PlatformAbortSignal = typeof globalThis extends {
  AbortSignal: { prototype: infer S }
}
  ? S
  : AbortSignalLike

const platform = globalThis as unknown as {
  AbortController: new () => { signal: AbortSignalLike; abort(reason?: unknown): void }
}

export interface IntervalLeaseOptions {
  /**
   * The holder stops this many ms (reference time) before the end: room for what happens between
   * a check and the action taking effect, and for a late timer. Default 0.
   */
  marginMs?: number
  /**
   * A hold looks at least this often (monotonic ms), so that a step of the wall clock is seen when
   * nothing else reads the source. Default 1,000.
   */
  checkEveryMs?: number
}

export const DEFAULT_LEASE_CHECK_EVERY_MS = 1_000

/** A lease being held: act only while `signal` has not fired, and `assertHeld()` right before. */
export interface LeaseHold {
  readonly terms: LeaseTerms
  /** Aborts, with a `LeaseLostError` as its reason, the moment the holder can no longer be sure. */
  readonly signal: PlatformAbortSignal
  /** The interval now, or throws `LeaseLostError` (and aborts the signal). */
  assertHeld(): SynchronizedInterval
  /** Lets the lease go: the signal aborts with reason `released`. */
  release(): void
}

export class IntervalLease {
  readonly source: IntervalTimeSource
  readonly marginMs: number
  readonly checkEveryMs: number

  constructor(source: IntervalTimeSource, options: IntervalLeaseOptions = {}) {
    const { marginMs = 0, checkEveryMs = DEFAULT_LEASE_CHECK_EVERY_MS } = options
    this.source = source
    this.marginMs = checkMs('marginMs', marginMs)
    this.checkEveryMs = checkMs('checkEveryMs', checkEveryMs, true)
  }

  /** Whether the holder of `terms` may act now (see `holdVerdict`). */
  check(terms: LeaseTerms): HoldVerdict {
    return holdVerdict(
      checkLeaseTerms(terms),
      this.source.now(),
      this.source.core.settings,
      this.marginMs,
    )
  }

  /**
   * Starts holding `terms` once the holder may act (waiting for its earliest to pass `start`).
   * Rejects with `LeaseLostError` when it cannot (ended, unsynchronized), with
   * `TimeWaitAbortedError` when `signal` fires first, with `InvalidArgumentError` on bad terms.
   */
  hold(terms: LeaseTerms, options: { signal?: AbortSignalLike } = {}): Promise<LeaseHold> {
    let checked: LeaseTerms
    try {
      checked = checkLeaseTerms(terms)
    } catch (error) {
      return Promise.reject(error)
    }
    const { signal } = options
    const { timers } = this.source
    return new Promise((resolve, reject) => {
      let handle: unknown
      const onAbort = () => {
        timers.clearTimeout(handle)
        reject(new TimeWaitAbortedError(checked.start ?? checked.end, signal?.reason))
      }
      if (signal?.aborted) return onAbort()
      signal?.addEventListener('abort', onAbort, { once: true })
      const look = () => {
        const steps = this.source.core.steps
        const verdict = this.check(checked)
        if (verdict.mayAct || verdict.reason !== 'not-started')
          signal?.removeEventListener('abort', onAbort)
        if (verdict.mayAct) return resolve(new Hold(this, checked, steps, verdict))
        if (verdict.reason !== 'not-started') return reject(lost(checked, verdict))
        // At least 1 ms: timers are coarse, and the next look must make progress.
        handle = timers.setTimeout(look, Math.max(1, verdict.waitMs))
      }
      look()
    })
  }

  /**
   * The grantor's side: waits until earliest > `previousEnd` (commit wait; none for a first lease,
   * `undefined`), then grants terms ending at latest + `durationMs` (see `grantVerdict`). Rejects
   * with `ClockUnsynchronizedError` when the source cannot bound the time, `TimeWaitAbortedError`
   * when `signal` fires, `InvalidArgumentError` on bad input.
   */
  async grantAfter(
    previousEnd: number | undefined,
    options: { durationMs: number; signal?: AbortSignalLike },
  ): Promise<LeaseTerms> {
    const { durationMs, signal } = options ?? {}
    checkMs('durationMs', durationMs, true)
    if (previousEnd !== undefined && !Number.isFinite(previousEnd))
      throw new InvalidArgumentError(`previousEnd must be a finite number, got ${previousEnd}`)
    if (signal?.aborted) throw new TimeWaitAbortedError(previousEnd ?? 0, signal.reason)
    const interval =
      previousEnd === undefined
        ? this.source.nowSynchronized()
        : await this.source.waitUntilAfter(previousEnd, signal ? { signal } : {})
    const verdict: GrantVerdict = grantVerdict(
      interval,
      previousEnd,
      durationMs,
      this.source.core.settings,
    )
    // waitUntilAfter resolved with earliest > previousEnd: the verdict is a grant.
    if (!verdict.granted) throw new Error(`unreachable: grant refused (${verdict.reason})`)
    return verdict.terms
  }
}

/** An `IntervalLease` over `source`. */
export function createIntervalLease(
  source: IntervalTimeSource,
  options: IntervalLeaseOptions = {},
): IntervalLease {
  return new IntervalLease(source, options)
}

function lost(terms: LeaseTerms, verdict: HoldVerdict & { mayAct: false }): LeaseLostError {
  if (verdict.reason === 'unsynchronized')
    return new LeaseLostError('unsynchronized', terms.end, verdict.status)
  // 'not-started' after acting cannot happen (earliest only grows); it counts as ended.
  return new LeaseLostError('ended', terms.end)
}

/**
 * One hold: a timer set for when latest reaches the end (or the sync expires), at most
 * `checkEveryMs` away, and a look after every sync and step the source reports.
 */
class Hold implements LeaseHold {
  readonly terms: LeaseTerms
  readonly signal: PlatformAbortSignal
  private readonly controller = new platform.AbortController()
  private readonly unwatch: () => void
  private handle: unknown
  private done = false

  constructor(
    private readonly lease: IntervalLease,
    terms: LeaseTerms,
    private readonly stepsAtStart: number,
    first: HoldVerdict & { mayAct: true },
  ) {
    this.terms = terms
    this.signal = this.controller.signal as PlatformAbortSignal
    this.unwatch = lease.source.watch(() => this.look())
    this.arm(first.remainingMs)
  }

  assertHeld(): SynchronizedInterval {
    const verdict = this.look()
    if (verdict?.mayAct) return verdict.interval
    throw this.controller.signal.reason as LeaseLostError
  }

  release(): void {
    this.finish(new LeaseLostError('released', this.terms.end))
  }

  /** Reads the source now: aborts when the holder may no longer act, else sets the next look. */
  private look(): HoldVerdict | undefined {
    if (this.done) return undefined
    // Without `start`: once earliest has passed it, true time has, for good (a later sync with a
    // wider bound may move earliest back, which says nothing new).
    const verdict = this.lease.check({ end: this.terms.end })
    // A read may report a step to the watcher, which looks again: that look decided already.
    if (this.done) return undefined
    if (this.lease.source.core.steps !== this.stepsAtStart) {
      this.finish(new LeaseLostError('stepped', this.terms.end))
      return undefined
    }
    if (!verdict.mayAct) {
      this.finish(lost(this.terms, verdict))
      return verdict
    }
    this.arm(verdict.remainingMs)
    return verdict
  }

  private arm(remainingMs: number): void {
    const { timers } = this.lease.source
    timers.clearTimeout(this.handle)
    // At least 1 ms: a remaining 0 that still may act looks again once the clock has moved.
    const ms = Math.max(1, Math.min(remainingMs, this.lease.checkEveryMs))
    this.handle = timers.setTimeout(() => this.look(), ms)
  }

  private finish(reason: LeaseLostError): void {
    if (this.done) return
    this.done = true
    this.lease.source.timers.clearTimeout(this.handle)
    this.unwatch()
    this.controller.abort(reason)
  }
}
