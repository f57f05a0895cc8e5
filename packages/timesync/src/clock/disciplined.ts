import { InvalidArgumentError, isBoolean, isFiniteNumber, numberIn, shape } from '@sd/transport'
import { checkSnapshot, isFiniteOrNull } from '../snapshot-check.js'

export interface DisciplinePolicy {
  /**
   * A correction forward larger than this (ms) is stepped: the clock jumps ahead at once. Smaller
   * ones, and every correction backwards, are slewed. Default 128 ms (ntpd's step threshold).
   * `Infinity` never steps.
   */
  stepThresholdMs?: number
  /**
   * The most the clock's rate may differ from the hardware's while slewing, as a fraction in
   * (0, 1): 0.0005 (Linux adjtime's 500 ppm, the default) corrects 1 ms per 2 s. A correction of
   * x ms takes |x| / maxSlewRate ticks.
   */
  maxSlewRate?: number
}

/** What one correction did. `a`, `b` and `ticks` are the texts' linear compensation. */
export interface Correction {
  kind: 'none' | 'slew' | 'step'
  /** The correction asked for (ms): target minus the reading when it was asked. */
  offsetMs: number
  /** The hardware reading h at which it began. */
  fromH: number
  /** S(t) = (1 + a) H(t) + b while slewing; a = 0 after a step. */
  a: number
  b: number
  /** N: hardware ticks (ms) until the target is reached; 0 for a step. */
  ticks: number
}

/** A `DisciplinedClock`'s state, as `snapshot()` gives it and `restore()` takes it. */
export interface DisciplinedClockSnapshot {
  h0: number
  base: number
  rate: number
  until: number | null
  initialized: boolean
  last: number | null
}

const SNAPSHOT_FIELDS = {
  h0: isFiniteNumber,
  base: isFiniteNumber,
  // 1 + a with |a| < 1: a slew never stops the clock or runs it backwards.
  rate: numberIn(Number.MIN_VALUE, 2),
  until: isFiniteOrNull,
  initialized: isBoolean,
  last: isFiniteOrNull,
}

/** Whether `value` is what a `DisciplinedClock`'s `snapshot()` gives (protocols check it first). */
export const isDisciplinedClockSnapshot = shape(SNAPSHOT_FIELDS)

/**
 * A software clock S disciplined over a hardware clock H that it never sets back. The texts'
 * linear compensation: to reach the real time T after N ticks from the reading Rl at H = h, run
 * S(t) = (1 + a) H(t) + b with a = (T - Rl) / N and b = Rl - (1 + a) h; at H = h + N,
 * S = T + N, in step with real time, and S runs at the hardware's rate again.
 *
 * Pure: it holds no reference to a clock; every call is given the hardware reading (in a
 * protocol, `ctx.now()`). Readings never decrease, even if the hardware is set back under it.
 */
export class DisciplinedClock {
  readonly stepThresholdMs: number
  readonly maxSlewRate: number
  /** S = base + (H - h0) * rate until H reaches `until`, then base' + (H - until). */
  private h0 = 0
  private base = 0
  private rate = 1
  private until = Number.NEGATIVE_INFINITY
  private initialized = false
  private last = Number.NEGATIVE_INFINITY

  constructor(policy: DisciplinePolicy = {}) {
    const { stepThresholdMs = 128, maxSlewRate = 0.0005 } = policy
    if (!(stepThresholdMs >= 0))
      throw new InvalidArgumentError(`stepThresholdMs must be >= 0, got ${stepThresholdMs}`)
    if (!(maxSlewRate > 0 && maxSlewRate < 1))
      throw new InvalidArgumentError(`maxSlewRate must be in (0, 1), got ${maxSlewRate}`)
    this.stepThresholdMs = stepThresholdMs
    this.maxSlewRate = maxSlewRate
  }

  /** The clock's state as plain data (the bounds never reached, -Infinity, as null). */
  snapshot(): DisciplinedClockSnapshot {
    const finite = (x: number) => (Number.isFinite(x) ? x : null)
    return {
      h0: this.h0,
      base: this.base,
      rate: this.rate,
      until: finite(this.until),
      initialized: this.initialized,
      last: finite(this.last),
    }
  }

  /**
   * Takes on what `snapshot()` gave (its policy stays this clock's own); refuses another shape
   * with `InvalidArgumentError`. Restoring twice from equal snapshots is the same as once: a
   * clock shared by two protocols is restored by each.
   */
  restore(snapshot: unknown): void {
    const s = checkSnapshot('DisciplinedClock', SNAPSHOT_FIELDS, snapshot)
    this.h0 = s.h0
    this.base = s.base
    this.rate = s.rate
    this.until = s.until ?? Number.NEGATIVE_INFINITY
    this.initialized = s.initialized
    this.last = s.last ?? Number.NEGATIVE_INFINITY
  }

  /** S at hardware reading `h`: monotone non-decreasing across calls. */
  read(h: number): number {
    if (!this.initialized) {
      // Before any correction S is H itself.
      this.initialized = true
      this.h0 = h
      this.base = h
    }
    // During a slew S runs at `rate`; after it (or with none) at the hardware's rate.
    const slewed = Math.min(h, Math.max(this.until, this.h0)) - this.h0
    const reading = this.base + slewed * this.rate + (h - this.h0 - slewed)
    this.last = Math.max(this.last, reading)
    return this.last
  }

  /** S minus H at `h`: what the corrections so far add to the hardware. */
  offset(h: number): number {
    return this.read(h) - h
  }

  /** True while a slew is under way at `h`. */
  slewing(h: number): boolean {
    return this.until !== Number.NEGATIVE_INFINITY && h < this.until
  }

  /**
   * Corrects S by `offsetMs` (the target minus the present reading): a step forward when it is
   * larger than the step threshold, a slew otherwise; never a step back. Replaces a slew under
   * way, whose remainder the new measurement already includes.
   */
  adjust(h: number, offsetMs: number): Correction {
    if (!Number.isFinite(offsetMs))
      throw new InvalidArgumentError(`offsetMs must be a finite number, got ${offsetMs}`)
    const rl = this.read(h)
    let correction: Correction
    if (offsetMs === 0) {
      correction = { kind: 'none', offsetMs, fromH: h, a: 0, b: rl - h, ticks: 0 }
      this.restart(h, rl, 1, Number.NEGATIVE_INFINITY)
    } else if (offsetMs > this.stepThresholdMs) {
      const target = rl + offsetMs
      correction = { kind: 'step', offsetMs, fromH: h, a: 0, b: target - h, ticks: 0 }
      this.restart(h, target, 1, Number.NEGATIVE_INFINITY)
      this.last = target
    } else {
      const ticks = Math.abs(offsetMs) / this.maxSlewRate
      const a = offsetMs / ticks
      correction = { kind: 'slew', offsetMs, fromH: h, a, b: rl - (1 + a) * h, ticks }
      this.restart(h, rl, 1 + a, h + ticks)
    }
    return correction
  }

  private restart(h: number, base: number, rate: number, until: number): void {
    this.initialized = true
    this.h0 = h
    this.base = base
    this.rate = rate
    this.until = until
  }
}
