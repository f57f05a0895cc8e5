/**
 * What a leader watch needs from a failure detector, so the heartbeat timeout and phi accrual
 * plug into the same place. Readings are of the node's monotonic clock; the caller owns the one
 * timer: it sets it `nextCheckMs` from now, re-arms it on every `heard`, and asks `suspects` when
 * it fires.
 */
import { PhiAccrual, type PhiAccrualSnapshot, type PhiSettings } from './phi-accrual.js'

export interface FailureDetector {
  /** Starts watching afresh (a new leader): the silence counts from `now`. */
  reset(now: number): void
  /** Something proved the peer alive at `now`. */
  heard(now: number): void
  /** When to look again, ms from `now`, if nothing is heard meanwhile. */
  nextCheckMs(now: number): number
  /** The timer set from `nextCheckMs` fired at `now` with nothing heard since: suspect the peer? */
  suspects(now: number): boolean
  /** Its state as plain data; undefined when it keeps none (the timer is all of it). */
  snapshot(): PhiAccrualSnapshot | undefined
}

/** The classic detector: suspect after `timeoutMs` of silence, whatever came before. */
export function timeoutDetector(timeoutMs: number): FailureDetector {
  return {
    reset: () => {},
    heard: () => {},
    nextCheckMs: () => timeoutMs,
    // The timer is re-armed at every heartbeat: firing means timeoutMs of silence, exactly.
    suspects: () => true,
    snapshot: () => undefined,
  }
}

/** Phi accrual behind the same shape: the timer is set for when phi will reach the threshold. */
export function phiDetector(settings: PhiSettings): FailureDetector {
  const accrual = new PhiAccrual(settings)
  return {
    reset: (now) => accrual.reset(now),
    heard: (now) => accrual.heartbeat(now),
    // Whole ms, and at least 1: a timer that fires a hair early finds phi just short and re-arms.
    nextCheckMs: (now) => Math.max(1, Math.ceil(accrual.msUntil(settings.threshold, now))),
    // 'excused': this node was paused past the crossing (localPauseMs); the caller looks again.
    suspects: (now) => accrual.check(settings.threshold, now) === 'suspect',
    snapshot: () => accrual.snapshot(),
  }
}
