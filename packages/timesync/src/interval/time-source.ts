/**
 * The runtime side of time as an interval: reads the machine's clocks (performance.now for
 * durations, Date.now only to report and to watch for steps) and sets the timers of
 * `waitUntilAfter`. Both are injectable, so a test drives it on simulated clocks and timers.
 */
import { InvalidArgumentError } from '@sd/transport'
import type { AdjustedEvent } from '../contract.js'
import { type ClockUnsynchronizedError, TimeWaitAbortedError } from '../errors.js'
import {
  type ClockReading,
  type ClockStep,
  IntervalClock,
  type SynchronizedInterval,
  type SyncSample,
  type TimeInterval,
} from './interval-clock.js'
import type { IntervalClockOptions } from './options.js'
import { sampleFromAdjusted } from './sync-sample.js'

/** Reads of a clock pair before the tightest is kept (a preemption is rarely thrice in a row). */
const READ_ATTEMPTS = 3

/** The two clocks a time source reads, in ms. */
export interface LocalClocks {
  monotonic(): number
  wall(): number
}

/** What `waitUntilAfter` needs of an AbortSignal (a DOM or Node one is one): the declarations need neither's types. */
export interface AbortSignalLike {
  readonly aborted: boolean
  readonly reason?: unknown
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void
  removeEventListener(type: 'abort', listener: () => void): void
}

/** The timers `waitUntilAfter` sets (durations in monotonic ms). */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
}

/**
 * The platform's clock and timer functions, typed here: this entry's declarations and its build
 * go without DOM or Node types (both platforms have all four).
 */
const platform = globalThis as unknown as {
  performance: { now(): number }
  setTimeout(callback: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
}

/** performance.now() and Date.now(): present in Node and browsers alike. */
export const systemClocks: LocalClocks = {
  monotonic: () => platform.performance.now(),
  wall: () => Date.now(),
}

const globalTimers: Timers = {
  setTimeout: (callback, ms) => platform.setTimeout(callback, ms),
  clearTimeout: (handle) => platform.clearTimeout(handle),
}

export interface IntervalTimeSourceOptions extends IntervalClockOptions {
  /** Default `systemClocks`. */
  clocks?: LocalClocks
  /** Default the global setTimeout / clearTimeout. */
  timers?: Timers
  /** Called once per step of the wall clock seen (the interval is unsynchronized until the next sync). */
  onStep?: (step: ClockStep) => void
}

/** What an NTP query answers (`queryNtp`, `queryNtpSources`): an offset to the wall clock. */
export interface OffsetMeasurement {
  offsetMs: number
  errorBoundMs: number
}

export class IntervalTimeSource {
  readonly core: IntervalClock
  /** The timers it sets, for a wrapper that sets its own on the same clock (`IntervalLease`). */
  readonly timers: Timers
  private readonly clocks: LocalClocks
  private readonly onStep: ((step: ClockStep) => void) | undefined
  private readonly watchers = new Set<() => void>()
  private stepsSeen = 0

  constructor(options: IntervalTimeSourceOptions = {}) {
    const { clocks = systemClocks, timers = globalTimers, onStep, ...core } = options
    this.core = new IntervalClock(core)
    this.clocks = clocks
    this.timers = timers
    this.onStep = onStep
  }

  /**
   * Both clocks now. The wall clock is read between two reads of the monotonic one and paired
   * with their midpoint: a thread preempted between two plain reads would pair clocks read
   * milliseconds apart, which looks like a step of the wall clock. A bracket too wide to tell a
   * step from (over half `stepToleranceMs`) is read again, at most `READ_ATTEMPTS` times, and
   * the tightest kept.
   */
  reading(): ClockReading {
    const widest = this.core.settings.stepToleranceMs / 2
    let best = this.bracketed()
    for (let attempt = 1; attempt < READ_ATTEMPTS && !(best.widthMs <= widest); attempt++) {
      const next = this.bracketed()
      if (next.widthMs < best.widthMs) best = next
    }
    return best.reading
  }

  /** The wall clock read between two monotonic reads, and how far apart those were. */
  private bracketed(): { reading: ClockReading; widthMs: number } {
    const before = this.clocks.monotonic()
    const wallMs = this.clocks.wall()
    const widthMs = this.clocks.monotonic() - before
    return { reading: { monotonicMs: before + widthMs / 2, wallMs }, widthMs }
  }

  /** The interval now: synchronized, or unbounded with the reason (see `TimeInterval`). */
  now(): TimeInterval {
    return this.after(() => this.core.read(this.reading()))
  }

  /** The interval now, or `ClockUnsynchronizedError`. */
  nowSynchronized(): SynchronizedInterval {
    return this.after(() => this.core.readSynchronized(this.reading()))
  }

  /** A sample whose instant is on this source's monotonic clock; false if refused (see `IntervalClock.sync`). */
  sync(sample: SyncSample): boolean {
    return this.taken(this.after(() => this.core.sync(sample, this.reading())))
  }

  /**
   * Calls `listener` after every sync taken and every step seen (on any read): what changes the
   * interval other than time passing. Returns the function that stops it.
   */
  watch(listener: () => void): () => void {
    this.watchers.add(listener)
    return () => this.watchers.delete(listener)
  }

  /** A synchronizer's `adjusted` event, emitted just now (see `sampleFromAdjusted`). */
  syncFromAdjusted(event: AdjustedEvent, measuredFromMonotonicMs?: number): boolean {
    const reading = this.reading()
    return this.taken(
      this.after(() =>
        this.core.sync(
          sampleFromAdjusted(event, reading.monotonicMs, measuredFromMonotonicMs),
          reading,
        ),
      ),
    )
  }

  /**
   * Runs a measurement of the wall clock's offset and takes it: true, or false when the wall clock
   * stepped meanwhile. The measurement must be taken against the wall clock it is given (this
   * source's), e.g. `(wall) => queryNtp(host, { clock: wall })`: an offset to another clock would
   * be off by the difference between the two.
   */
  async syncWith(measure: (wall: () => number) => Promise<OffsetMeasurement>): Promise<boolean> {
    const before = this.reading()
    const result = await measure(() => this.clocks.wall())
    return this.taken(this.after(() => this.core.syncFromOffset(result, before, this.reading())))
  }

  /**
   * Commit wait: resolves with the first interval read whose earliest is after `targetMs`, so
   * that `targetMs` has certainly passed everywhere. Rejects with `ClockUnsynchronizedError` if
   * the clock cannot bound the time when it looks (at the call and at each wake-up), and with
   * `TimeWaitAbortedError` when `signal` fires.
   */
  waitUntilAfter(
    targetMs: number,
    options: { signal?: AbortSignalLike } = {},
  ): Promise<SynchronizedInterval> {
    if (!(typeof targetMs === 'number' && Number.isFinite(targetMs)))
      return Promise.reject(
        new InvalidArgumentError(`targetMs must be a finite number, got ${targetMs}`),
      )
    const { signal } = options
    return new Promise((resolve, reject) => {
      let handle: unknown
      const onAbort = () => {
        this.timers.clearTimeout(handle)
        reject(new TimeWaitAbortedError(targetMs, signal?.reason))
      }
      if (signal?.aborted) return onAbort()
      signal?.addEventListener('abort', onAbort, { once: true })
      const settle = (outcome: () => void) => {
        signal?.removeEventListener('abort', onAbort)
        outcome()
      }
      const look = () => {
        let interval: SynchronizedInterval
        try {
          interval = this.nowSynchronized()
        } catch (error) {
          return settle(() => reject(error as ClockUnsynchronizedError))
        }
        if (interval.earliest > targetMs) return settle(() => resolve(interval))
        // At least 1 ms: timers are coarse, and the next look must make progress.
        handle = this.timers.setTimeout(
          look,
          Math.max(1, this.core.commitWaitMs(interval, targetMs)),
        )
      }
      look()
    })
  }

  /** Runs `read` and reports the steps it saw. */
  private after<T>(read: () => T): T {
    try {
      return read()
    } finally {
      const step = this.core.lastStep
      if (this.stepsSeen < this.core.steps && step !== undefined) {
        this.stepsSeen = this.core.steps
        this.onStep?.(step)
        this.notify()
      }
    }
  }

  private taken(taken: boolean): boolean {
    if (taken) this.notify()
    return taken
  }

  private notify(): void {
    for (const listener of [...this.watchers]) listener()
  }
}
