import { InvalidArgumentError } from '@sd/transport'

export interface IntervalClockOptions {
  /**
   * The bound ρ on the local monotonic clock's rate error against true time, in ppm: a true
   * duration d reads between d (1 − ρ) and d (1 + ρ). Default 200 (DEFAULT_MAX_DRIFT_PPM).
   */
  maxDriftPpm?: number
  /** A sync older than this (monotonic ms) no longer bounds the time. Default 1,024,000 (1024 s). */
  maxSyncAgeMs?: number
  /**
   * How far the wall clock may move against the monotonic one between two reads before it counts
   * as a step (ms, on top of 2ρ of the elapsed time). Default 5.
   */
  stepToleranceMs?: number
}

export interface IntervalClockSettings {
  /** ρ as a fraction (maxDriftPpm / 1e6). */
  maxDrift: number
  maxDriftPpm: number
  maxSyncAgeMs: number
  stepToleranceMs: number
}

/**
 * 200 ppm: twice the ±100 ppm a commodity quartz oscillator is specified for over its temperature
 * range (17 s a day). ClockBound's daemon defaults to 1 ppm to match chrony's `maxclockerror`,
 * and says itself that this is wrong for common oscillators; we would rather be wide than wrong.
 * A machine whose clock is known better (a disciplined one, a TCXO) lowers it.
 */
export const DEFAULT_MAX_DRIFT_PPM = 200

/** ntpd's default maxpoll, 2^10 s: a client that has not heard from a server since missed a poll. */
export const DEFAULT_MAX_SYNC_AGE_MS = 1_024_000

/** Above Date.now()'s 1 ms truncation and the gap between reading the two clocks on a busy machine. */
export const DEFAULT_STEP_TOLERANCE_MS = 5

export function resolveOptions(options: IntervalClockOptions = {}): IntervalClockSettings {
  const {
    maxDriftPpm = DEFAULT_MAX_DRIFT_PPM,
    maxSyncAgeMs = DEFAULT_MAX_SYNC_AGE_MS,
    stepToleranceMs = DEFAULT_STEP_TOLERANCE_MS,
  } = options
  // ρ = 1e6 ppm would let a clock stand still: no bound on the time then.
  if (!(typeof maxDriftPpm === 'number' && maxDriftPpm >= 0 && maxDriftPpm < 1e6))
    throw new InvalidArgumentError(`maxDriftPpm must be in [0, 1e6), got ${maxDriftPpm}`)
  if (!(typeof maxSyncAgeMs === 'number' && maxSyncAgeMs > 0 && !Number.isNaN(maxSyncAgeMs)))
    throw new InvalidArgumentError(
      `maxSyncAgeMs must be > 0 (Infinity allowed), got ${maxSyncAgeMs}`,
    )
  if (
    !(
      typeof stepToleranceMs === 'number' &&
      stepToleranceMs >= 0 &&
      Number.isFinite(stepToleranceMs)
    )
  )
    throw new InvalidArgumentError(
      `stepToleranceMs must be a finite number >= 0, got ${stepToleranceMs}`,
    )
  return { maxDrift: maxDriftPpm / 1e6, maxDriftPpm, maxSyncAgeMs, stepToleranceMs }
}
