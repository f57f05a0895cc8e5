/**
 * A lease whose end is a time on the reference's scale (absolute), for a holder and a grantor in
 * different processes: the pure arithmetic. It is fed intervals (`IntervalClock.read`) and reads
 * no clock and sets no timer; `interval-lease.ts` is the runtime over `IntervalTimeSource`.
 *
 * Why it is safe: every synchronized interval holds the reference's time t (earliest ≤ t ≤
 * latest), on the holder's machine and the grantor's alike, as long as each monotonic clock's
 * rate error is within its ρ and each sync's error within its stated bound. A holder acts only
 * while latest < end, so only at true times before `end`; a grantor grants the next lease only
 * once its earliest > that end, so after it. The two sides never compare their clocks with each
 * other, only each with the reference.
 */
import { InvalidArgumentError } from '@sd/transport'
import type { UnsynchronizedStatus } from '../errors.js'
import type { SynchronizedInterval, TimeInterval } from './interval-clock.js'
import type { IntervalClockSettings } from './options.js'

/** A lease's terms, in the reference's ms: what travels from the grantor to the holder. */
export interface LeaseTerms {
  /**
   * The previous lease's end: the holder acts only once its earliest is past it. The grantor
   * already waited for that before granting, but the check makes the terms enough on their own,
   * whatever the order they arrive in. Absent for a first lease.
   */
  start?: number
  /** The holder acts only while its latest is before this (less its margin). */
  end: number
}

/** What a holder may do now. `remainingMs` and `waitMs` are monotonic ms, for a timer. */
export type HoldVerdict =
  | {
      mayAct: true
      /** Until latest reaches end − margin, or the sync expires, whichever comes first. */
      remainingMs: number
      interval: SynchronizedInterval
    }
  | {
      mayAct: false
      reason: 'not-started'
      /** Until earliest passes `start` (then look again). */
      waitMs: number
      interval: SynchronizedInterval
    }
  | { mayAct: false; reason: 'ended'; interval: SynchronizedInterval }
  /** Nothing bounds the time: the lease may have ended anywhere. */
  | { mayAct: false; reason: 'unsynchronized'; status: UnsynchronizedStatus }

export type GrantVerdict =
  | { granted: true; terms: LeaseTerms; interval: SynchronizedInterval }
  | {
      granted: false
      reason: 'too-early'
      /** Until earliest passes the previous end (commit wait), monotonic ms. */
      waitMs: number
      interval: SynchronizedInterval
    }
  | { granted: false; reason: 'unsynchronized'; status: UnsynchronizedStatus }

const finite = (name: string, v: unknown) => {
  if (!(typeof v === 'number' && Number.isFinite(v)))
    throw new InvalidArgumentError(`${name} must be a finite number, got ${String(v)}`)
}

/** Terms as a holder receives them (from another process): checked, or `InvalidArgumentError`. */
export function checkLeaseTerms(terms: LeaseTerms): LeaseTerms {
  if (typeof terms !== 'object' || terms === null)
    throw new InvalidArgumentError(`lease terms must be an object, got ${String(terms)}`)
  finite('terms.end', terms.end)
  if (terms.start === undefined) return { end: terms.end }
  finite('terms.start', terms.start)
  if (!(terms.start < terms.end))
    throw new InvalidArgumentError(
      `terms.start (${terms.start}) must be before terms.end (${terms.end})`,
    )
  return { start: terms.start, end: terms.end }
}

/** A margin or a duration: a finite number of ms, >= 0 (> 0 when `positive`). */
export function checkMs(name: string, v: unknown, positive = false): number {
  finite(name, v)
  if ((v as number) < 0 || (positive && v === 0))
    throw new InvalidArgumentError(`${name} must be ${positive ? '> 0' : '>= 0'}, got ${v}`)
  return v as number
}

/**
 * The holder's side, at the instant `interval` was read: it may act only while the lease has
 * surely not ended anywhere, latest < end − marginMs. The margin covers what happens between
 * this check and the action taking effect (the action's own duration, a late timer). A clock
 * that cannot bound the time (never synced, expired, stepped) must stop: the lease may be over.
 */
export function holdVerdict(
  terms: LeaseTerms,
  interval: TimeInterval,
  settings: IntervalClockSettings,
  marginMs = 0,
): HoldVerdict {
  if (!interval.synchronized)
    return { mayAct: false, reason: 'unsynchronized', status: interval.status }
  const rho = settings.maxDrift
  const stopAt = terms.end - marginMs
  if (!(interval.latest < stopAt)) return { mayAct: false, reason: 'ended', interval }
  if (terms.start !== undefined && !(interval.earliest > terms.start))
    // earliest grows by 1 / (1 + ρ) per monotonic ms (as `IntervalClock.commitWaitMs`).
    return {
      mayAct: false,
      reason: 'not-started',
      waitMs: (terms.start - interval.earliest) * (1 + rho),
      interval,
    }
  // latest grows by at most 1 / (1 − ρ) per monotonic ms: it reaches stopAt no sooner than this.
  const untilEnd = (stopAt - interval.latest) * (1 - rho)
  const untilExpiry = settings.maxSyncAgeMs - interval.sinceSyncMs
  return { mayAct: true, remainingMs: Math.min(untilEnd, untilExpiry), interval }
}

/**
 * The grantor's side, at the instant `interval` was read: the next lease may start only once
 * earliest > previousEnd (commit wait), so the previous one has ended everywhere.
 *
 * Its end is `latest + durationMs`. The end must be stated in the reference's time, and the
 * grantor does not know that time exactly, only [earliest, latest]. With `latest + d`, the true
 * time at the grant is at most latest, so the lease lasts at least d true ms from the grant: a
 * promise the holder can use (it keeps d less the delivery, its own uncertainty latest − t and
 * its margin). `earliest + d` could end before the grant even reaches the holder when d is below
 * the grantor's uncertainty. What `latest` costs is on the grantor's side: the next grant comes
 * at most d + 2 × (its error bound) true ms later. Safety does not depend on this choice (the
 * holder's check and the commit wait carry it), only how useful the lease is.
 */
export function grantVerdict(
  interval: TimeInterval,
  previousEnd: number | undefined,
  durationMs: number,
  settings: IntervalClockSettings,
): GrantVerdict {
  if (previousEnd !== undefined) finite('previousEnd', previousEnd)
  checkMs('durationMs', durationMs, true)
  if (!interval.synchronized)
    return { granted: false, reason: 'unsynchronized', status: interval.status }
  if (previousEnd !== undefined && !(interval.earliest > previousEnd))
    return {
      granted: false,
      reason: 'too-early',
      waitMs: (previousEnd - interval.earliest) * (1 + settings.maxDrift),
      interval,
    }
  const end = interval.latest + durationMs
  return {
    granted: true,
    terms: previousEnd === undefined ? { end } : { start: previousEnd, end },
    interval,
  }
}
