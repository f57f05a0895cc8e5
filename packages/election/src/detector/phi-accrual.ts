/**
 * The phi accrual failure detector (Hayashibara et al., 2004), as Akka and Cassandra use it:
 * instead of a yes/no timeout, a level of suspicion phi that grows with the silence, scaled by
 * what the heartbeats' arrival times have been so far. phi = -log10(P(a heartbeat still comes
 * after this much silence)): phi 1 means a 10% chance of a mistake, phi 8 one in 10^8, if the
 * inter-arrival times are normal with the window's mean and deviation.
 *
 * This file is the pure arithmetic: a bounded window of inter-arrival times, phi at a reading of
 * the monotonic clock, and when phi will cross a threshold (so a protocol sets one timer instead
 * of polling). It reads no clock itself: every reading is passed in.
 */
import { InvalidArgumentError } from '@sd/transport'

export interface PhiOptions {
  /** Suspect once phi reaches this. Default 8 (Akka's and Cassandra's). */
  threshold?: number
  /** Inter-arrival times kept: the oldest is forgotten past this. Default 200. */
  windowSize?: number
  /**
   * Floor of the standard deviation, ms: a perfectly regular stream (deviation 0) would make the
   * first late heartbeat a certain crash. Default 25.
   */
  minStdDevMs?: number
  /**
   * Silence accepted on top of the mean interval before phi rises, ms (a GC pause, a burst of
   * loss), as Akka's acceptable-heartbeat-pause. Default 0.
   */
  acceptablePauseMs?: number
  /** The mean assumed while the window is empty (deviation a quarter of it), ms. Default 100. */
  firstHeartbeatEstimateMs?: number
  /**
   * A check that runs more than this after phi crossed the threshold may have been held up by this
   * node itself (a GC pause, a blocked event loop), and an event loop runs its late timers before
   * the datagrams that came meanwhile: a heartbeat may be waiting, unread, behind the check. The
   * silence since the crossing is then not held against the peer (once per heartbeat), and it
   * looks again 1 ms later, after what waited; as Cassandra's gossiper marks nobody down right
   * after a local pause. 0: every suspicion is looked at once more (a check never runs exactly at
   * the crossing), 1 ms of detection for every pause of the watcher. Default Infinity: never.
   */
  localPauseMs?: number
}

export type PhiSettings = Required<PhiOptions>

export const DEFAULT_PHI_THRESHOLD = 8
export const DEFAULT_PHI_WINDOW = 200

/** Options with defaults filled in; InvalidArgumentError naming the option when one is wrong. */
export function phiSettings(options: PhiOptions = {}): PhiSettings {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidArgumentError('phi: options must be an object')
  }
  const positive = (name: keyof PhiOptions, fallback: number, zeroOk = false): number => {
    const v = options[name] ?? fallback
    if (!(typeof v === 'number' && Number.isFinite(v) && (v > 0 || (zeroOk && v === 0)))) {
      throw new InvalidArgumentError(
        `phi: ${name} must be a finite number ${zeroOk ? '>= 0' : '> 0'}, got ${String(v)}`,
      )
    }
    return v
  }
  const windowSize = positive('windowSize', DEFAULT_PHI_WINDOW)
  if (!Number.isInteger(windowSize)) {
    throw new InvalidArgumentError(`phi: windowSize must be an integer, got ${windowSize}`)
  }
  return {
    threshold: positive('threshold', DEFAULT_PHI_THRESHOLD),
    windowSize,
    minStdDevMs: positive('minStdDevMs', 25),
    acceptablePauseMs: positive('acceptablePauseMs', 0, true),
    firstHeartbeatEstimateMs: positive('firstHeartbeatEstimateMs', 100),
    localPauseMs: localPause(options.localPauseMs),
  }
}

function localPause(v: unknown = Number.POSITIVE_INFINITY): number {
  if (!(typeof v === 'number' && v >= 0 && !Number.isNaN(v))) {
    throw new InvalidArgumentError(`phi: localPauseMs must be a number >= 0, got ${String(v)}`)
  }
  return v
}

/** ln(1 + e^a) without overflow for large a or loss for very negative a. */
function softplus(a: number): number {
  return Math.max(a, 0) + Math.log1p(Math.exp(-Math.abs(a)))
}

/** The polynomial of the logistic approximation of the normal CDF (as Akka's): increasing in y. */
const shape = (y: number): number => y * (1.5976 + 0.070566 * y * y)

/**
 * phi for `elapsed` ms of silence when intervals have this mean and deviation:
 * -log10(1 - F(elapsed)), F the normal CDF approximated by 1 / (1 + e^-shape(y)).
 * Finite for every finite input (a very long silence gives a large phi, not Infinity).
 */
export function phiOf(elapsed: number, mean: number, stdDev: number): number {
  return softplus(shape((elapsed - mean) / stdDev)) / Math.LN10
}

/** The silence, ms, at which phi reaches `threshold` (the inverse of `phiOf`). */
export function silenceForPhi(threshold: number, mean: number, stdDev: number): number {
  const x = threshold * Math.LN10
  const target = x + Math.log1p(-Math.exp(-x)) // softplus^-1(x)
  // shape is increasing: bisect its root (60 halvings of [-64, 64] leave far under 1e-12).
  let lo = -64
  let hi = 64
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2
    if (shape(mid) < target) lo = mid
    else hi = mid
  }
  return mean + hi * stdDev
}

/** Snapshot of a PhiAccrual: plain data, the window in arrival order (the order evicts). */
export interface PhiAccrualSnapshot {
  intervals: number[]
  lastHeartbeat: number | null
  silentSince: number | null
}

/** One peer's heartbeat history and the phi it gives. */
export class PhiAccrual {
  private intervals: number[] = []
  /** The last heartbeat's reading, or undefined before the first (since the last reset). */
  private lastHeartbeat: number | undefined
  /** Where the current silence started: the last heartbeat, or the reset. */
  private silentSince: number | undefined

  constructor(readonly settings: PhiSettings) {}

  /**
   * Starts counting silence from `now` without taking the gap to the next heartbeat as an
   * interval (a new leader, a peer just added). The window is kept: it describes the network.
   */
  reset(now: number): void {
    this.lastHeartbeat = undefined
    this.silentSince = now
  }

  /** A heartbeat arrived at `now` (monotonic ms). */
  heartbeat(now: number): void {
    if (this.lastHeartbeat !== undefined) {
      this.intervals.push(now - this.lastHeartbeat)
      if (this.intervals.length > this.settings.windowSize) this.intervals.shift()
    }
    this.lastHeartbeat = now
    this.silentSince = now
  }

  /** When the current silence started, or undefined if nothing was heard nor reset yet. */
  get since(): number | undefined {
    return this.silentSince
  }

  /** Mean and deviation phi uses: the window's, the pause allowance and the floor applied. */
  distribution(): { mean: number; stdDev: number } {
    const { firstHeartbeatEstimateMs: first, minStdDevMs, acceptablePauseMs } = this.settings
    const n = this.intervals.length
    let mean = first
    let stdDev = first / 4
    if (n > 0) {
      mean = this.intervals.reduce((a, b) => a + b, 0) / n
      const variance = this.intervals.reduce((a, b) => a + (b - mean) ** 2, 0) / n
      stdDev = Math.sqrt(variance)
    }
    return { mean: mean + acceptablePauseMs, stdDev: Math.max(stdDev, minStdDevMs) }
  }

  /** phi at `now`: 0 when nothing was heard nor reset (nothing to be silent about). */
  phi(now: number): number {
    if (this.silentSince === undefined) return 0
    const { mean, stdDev } = this.distribution()
    return phiOf(Math.max(0, now - this.silentSince), mean, stdDev)
  }

  /**
   * Takes `ms` off the current silence: time this node was not running, so could not have heard
   * the peer (`localPauseMs`). Only once per heartbeat, so that a node paused again and again
   * still suspects, a look later; false when it did not (nor before the first heartbeat).
   */
  excuse(ms: number): boolean {
    if (this.lastHeartbeat === undefined || this.silentSince !== this.lastHeartbeat) return false
    this.silentSince += ms
    return true
  }

  /**
   * A check of phi against `threshold` at `now`: 'suspect', 'not yet' (phi is short), or
   * 'excused' when phi crossed the threshold more than `localPauseMs` before `now` and the
   * silence since was taken off (`excuse`): look again after what waited behind this check.
   */
  check(threshold: number, now: number): 'suspect' | 'not yet' | 'excused' {
    if (this.phi(now) < threshold) return 'not yet'
    const late = now - (this.silentSince ?? now) - silenceForPhi(threshold, ...this.meanAndDev())
    return late > this.settings.localPauseMs && this.excuse(late) ? 'excused' : 'suspect'
  }

  private meanAndDev(): [number, number] {
    const { mean, stdDev } = this.distribution()
    return [mean, stdDev]
  }

  /** ms from `now` until phi reaches `threshold` (0 if it has), if no heartbeat comes. */
  msUntil(threshold: number, now: number): number {
    const since = this.silentSince ?? now
    const { mean, stdDev } = this.distribution()
    return Math.max(0, since + silenceForPhi(threshold, mean, stdDev) - now)
  }

  /** The inter-arrival times held (oldest first). */
  window(): readonly number[] {
    return this.intervals
  }

  snapshot(): PhiAccrualSnapshot {
    return {
      intervals: [...this.intervals],
      lastHeartbeat: this.lastHeartbeat ?? null,
      silentSince: this.silentSince ?? null,
    }
  }
}
