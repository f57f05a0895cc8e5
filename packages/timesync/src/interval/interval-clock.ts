/**
 * Time as an interval (TrueTime, ClockBound): the pure arithmetic. Fed clock readings and sync
 * samples, it answers [earliest, latest], which holds the reference's time as long as the local
 * monotonic clock's rate error stays within ρ. No clock is read and no timer set here: the caller
 * passes every reading (time-source.ts reads the machine's clocks, a test its simulated ones).
 */
import { InvalidArgumentError } from '@sd/transport'
import { ClockUnsynchronizedError, type UnsynchronizedStatus } from '../errors.js'
import { type IntervalClockOptions, type IntervalClockSettings, resolveOptions } from './options.js'

/** The two local clocks read together: durations come from `monotonicMs`, `wallMs` is reported. */
export interface ClockReading {
  /** A clock that never jumps (performance.now, ctx.monotonic), ms. */
  monotonicMs: number
  /** The wall clock (Date.now, ctx.now), ms: watched for steps, never used for a duration. */
  wallMs: number
}

/** One synchronization: at local monotonic reading `monotonicMs`, the reference read `timeMs` ± `errorBoundMs`. */
export interface SyncSample {
  monotonicMs: number
  /** The reference's time, ms (Unix epoch for NTP; the simulator's server clock in a simulation). */
  timeMs: number
  /** The sync's own bound: NTP's root distance, Cristian's half round trip (and its allowances). */
  errorBoundMs: number
  /**
   * For a measurement taken on the wall clock (NTP's timestamps): the monotonic reading when it
   * began. A step seen since then makes it meaningless, and `sync` refuses it. Leave it out for
   * one timed on the monotonic clock (Cristian's), which a wall step does not touch.
   */
  measuredFromMonotonicMs?: number
}

/** The time is within [earliest, latest]. */
export interface SynchronizedInterval {
  synchronized: true
  status: 'synchronized'
  earliest: number
  latest: number
  /** Half the width: the sync's bound plus the drift allowance since. */
  errorBoundMs: number
  /** The local wall clock at the read, for reports (never part of the bound). */
  wallMs: number
  /** Monotonic ms since the sync sample. */
  sinceSyncMs: number
}

/** Nothing bounds the time: earliest −Infinity, latest +Infinity, and why in `status`. */
export interface UnsynchronizedInterval {
  synchronized: false
  /** `never-synced`, `expired` (the last sync is older than maxSyncAgeMs), `stepped` (see `ClockStep`). */
  status: UnsynchronizedStatus
  earliest: number
  latest: number
  wallMs: number
}

export type TimeInterval = SynchronizedInterval | UnsynchronizedInterval

export type IntervalStatus = TimeInterval['status']

/**
 * The wall clock moved against the monotonic one by `deltaMs` between two reads. Either the wall
 * clock was set, or the monotonic clock stood still while time went on (a suspended machine:
 * Linux's CLOCK_MONOTONIC does not count suspend), which would break the bound: so a step
 * invalidates the interval until the next sync.
 */
export interface ClockStep {
  monotonicMs: number
  deltaMs: number
}

const finite = (name: string, v: number) => {
  if (!(typeof v === 'number' && Number.isFinite(v)))
    throw new InvalidArgumentError(`${name} must be a finite number, got ${v}`)
}

function checkReading(reading: ClockReading) {
  finite('monotonicMs', reading.monotonicMs)
  finite('wallMs', reading.wallMs)
}

export class IntervalClock {
  readonly settings: IntervalClockSettings
  private sample: SyncSample | undefined
  private stepped = false
  private last: ClockReading | undefined
  private stepCount = 0
  private latestStep: ClockStep | undefined

  constructor(options: IntervalClockOptions = {}) {
    this.settings = resolveOptions(options)
  }

  /** Steps seen so far (a count, so a caller can tell a new one from the last). */
  get steps(): number {
    return this.stepCount
  }

  get lastStep(): ClockStep | undefined {
    return this.latestStep
  }

  /**
   * Takes a sync sample, read at `reading` (at or after the sample's instant): it replaces the
   * last one and clears a step. Returns false, and takes nothing, for a wall-clock measurement
   * with a step seen since it began (`measuredFromMonotonicMs`).
   */
  sync(sample: SyncSample, reading: ClockReading): boolean {
    finite('sample.monotonicMs', sample.monotonicMs)
    finite('sample.timeMs', sample.timeMs)
    if (!(typeof sample.errorBoundMs === 'number' && sample.errorBoundMs >= 0))
      throw new InvalidArgumentError(
        `sample.errorBoundMs must be a number >= 0, got ${sample.errorBoundMs}`,
      )
    finite('sample.errorBoundMs', sample.errorBoundMs)
    checkReading(reading)
    if (sample.monotonicMs > reading.monotonicMs)
      throw new InvalidArgumentError(
        `the sample (monotonic ${sample.monotonicMs}) is later than the reading (${reading.monotonicMs})`,
      )
    const from = sample.measuredFromMonotonicMs
    if (from !== undefined) finite('sample.measuredFromMonotonicMs', from)
    this.observe(reading)
    if (from !== undefined && this.latestStep !== undefined && this.latestStep.monotonicMs >= from)
      return false
    this.sample = {
      monotonicMs: sample.monotonicMs,
      timeMs: sample.timeMs,
      errorBoundMs: sample.errorBoundMs,
    }
    this.stepped = false
    return true
  }

  /**
   * A sync from an offset to the wall clock (what `queryNtp` answers), measured between the
   * readings `before` and `after`. The offset held for the wall clock at some instant between
   * them, so it is carried to `after` with the drift allowance over the query. A step of the wall
   * clock during the query makes the offset meaningless: the sample is refused (false).
   */
  syncFromOffset(
    result: { offsetMs: number; errorBoundMs: number },
    before: ClockReading,
    after: ClockReading,
  ): boolean {
    checkReading(before)
    checkReading(after)
    finite('offsetMs', result.offsetMs)
    const elapsed = after.monotonicMs - before.monotonicMs
    if (elapsed < 0)
      throw new InvalidArgumentError(
        `after (${after.monotonicMs}) is before before (${before.monotonicMs})`,
      )
    const moved = after.wallMs - after.monotonicMs - (before.wallMs - before.monotonicMs)
    if (this.isStep(moved, elapsed)) {
      const seen = this.stepCount
      this.observe(after)
      if (this.stepCount === seen) this.markStep({ monotonicMs: after.monotonicMs, deltaMs: moved })
      return false
    }
    const rho = this.settings.maxDrift
    return this.sync(
      {
        monotonicMs: after.monotonicMs,
        timeMs: after.wallMs + result.offsetMs,
        errorBoundMs: result.errorBoundMs + (rho / (1 - rho)) * elapsed,
      },
      after,
    )
  }

  /** The interval at `reading`; reads must come in monotonic order. */
  read(reading: ClockReading): TimeInterval {
    checkReading(reading)
    this.observe(reading)
    return this.intervalAt(reading)
  }

  /** As `read`, but a clock that cannot bound the time throws `ClockUnsynchronizedError`. */
  readSynchronized(reading: ClockReading): SynchronizedInterval {
    const interval = this.read(reading)
    if (interval.synchronized) return interval
    throw new ClockUnsynchronizedError(interval.status, this.why(interval.status, reading))
  }

  /**
   * Monotonic ms from `interval` (read at its `sinceSyncMs`) until earliest passes `targetMs`:
   * earliest grows by 1 / (1 + ρ) per monotonic ms. 0 when it already has.
   */
  commitWaitMs(interval: SynchronizedInterval, targetMs: number): number {
    if (interval.earliest > targetMs) return 0
    return (targetMs - interval.earliest) * (1 + this.settings.maxDrift)
  }

  private intervalAt(reading: ClockReading): TimeInterval {
    const { wallMs } = reading
    const unsynchronized = (status: UnsynchronizedStatus): UnsynchronizedInterval => ({
      synchronized: false,
      status,
      earliest: Number.NEGATIVE_INFINITY,
      latest: Number.POSITIVE_INFINITY,
      wallMs,
    })
    const sample = this.sample
    if (sample === undefined) return unsynchronized('never-synced')
    if (this.stepped) return unsynchronized('stepped')
    const age = reading.monotonicMs - sample.monotonicMs
    if (age > this.settings.maxSyncAgeMs) return unsynchronized('expired')
    const rho = this.settings.maxDrift
    // A true duration d reads between d (1 − ρ) and d (1 + ρ), so `age` monotonic ms are between
    // age / (1 + ρ) and age / (1 − ρ) true ms.
    const earliest = sample.timeMs - sample.errorBoundMs + age / (1 + rho)
    const latest = sample.timeMs + sample.errorBoundMs + age / (1 - rho)
    return {
      synchronized: true,
      status: 'synchronized',
      earliest,
      latest,
      errorBoundMs: (latest - earliest) / 2,
      wallMs,
      sinceSyncMs: age,
    }
  }

  /** Compares the wall clock's progress with the monotonic one's since the last reading. */
  private observe(reading: ClockReading): void {
    const last = this.last
    if (last !== undefined) {
      const elapsed = reading.monotonicMs - last.monotonicMs
      if (elapsed < 0)
        throw new InvalidArgumentError(
          `the monotonic clock went back from ${last.monotonicMs} to ${reading.monotonicMs}: readings must come in order`,
        )
      const moved = reading.wallMs - last.wallMs - elapsed
      if (this.isStep(moved, elapsed))
        this.markStep({ monotonicMs: reading.monotonicMs, deltaMs: moved })
    }
    this.last = { monotonicMs: reading.monotonicMs, wallMs: reading.wallMs }
  }

  /** Two clocks within ρ of true rate part by at most 2ρ of the time between reads. */
  private isStep(movedMs: number, elapsedMs: number): boolean {
    const { stepToleranceMs, maxDrift } = this.settings
    return Math.abs(movedMs) > stepToleranceMs + 2 * maxDrift * elapsedMs
  }

  private markStep(step: ClockStep): void {
    this.stepped = true
    this.stepCount++
    this.latestStep = step
  }

  private why(status: UnsynchronizedStatus, reading: ClockReading): string {
    if (status === 'never-synced') return 'no sync sample yet'
    if (status === 'stepped')
      return `the wall clock moved ${this.latestStep?.deltaMs} ms against the monotonic one; waiting for a sync`
    const age = reading.monotonicMs - (this.sample?.monotonicMs ?? 0)
    return `the last sync is ${age} ms old, more than maxSyncAgeMs ${this.settings.maxSyncAgeMs}`
  }
}
