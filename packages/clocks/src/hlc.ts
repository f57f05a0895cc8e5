import { checkCounter } from './arguments.js'
import { ClockOverflowError, ClockSkewError, InvalidClockArgumentError } from './errors.js'

/** A hybrid timestamp: `wall` is the largest physical time (integer ms) seen, `counter` orders events within it. */
export interface HlcTimestamp {
  readonly wall: number
  readonly counter: number
}

/** Orders hybrid timestamps by (wall, counter). Returns < 0, 0 or > 0. */
export function compareHlc(a: HlcTimestamp, b: HlcTimestamp): number {
  if (a.wall !== b.wall) return a.wall < b.wall ? -1 : 1
  return a.counter < b.counter ? -1 : a.counter > b.counter ? 1 : 0
}

/** The largest wall time the binary form holds: 2^48 - 1 ms (year 10889). */
export const HLC_MAX_WALL = 2 ** 48 - 1
/** The default and largest counter: 2^32 - 1, the width of the binary form. */
export const HLC_MAX_COUNTER = 2 ** 32 - 1

export interface HybridLogicalClockOptions {
  /** Reads the physical clock in ms (e.g. `Date.now`, or `ctx.now` in a protocol). Fractions are floored. */
  now: () => number
  /**
   * The largest amount a received timestamp may be ahead of the local physical clock. Beyond it
   * `receive` throws ClockSkewError and leaves the clock unchanged, so one bad clock cannot drag
   * every other clock into the future. Default 500 ms; Infinity turns the check off.
   */
  maxSkewMs?: number
  /** The largest counter value before ClockOverflowError (default and maximum 2^32 - 1). */
  maxCounter?: number
  /** Initial state, e.g. restored after a restart (default { wall: 0, counter: 0 }). */
  start?: HlcTimestamp
}

/**
 * A hybrid logical clock (Kulkarni, Demirbas et al., 2014): a Lamport clock whose value tracks
 * physical time. It keeps the clock condition (a -> b implies hlc(a) < hlc(b)), its wall part
 * never drifts from the physical clock by more than the skew it accepts, and it fits in 80 bits.
 */
export class HybridLogicalClock {
  readonly maxSkewMs: number
  readonly maxCounter: number
  private readonly physical: () => number
  private wall: number
  private counter: number

  constructor(options: HybridLogicalClockOptions) {
    if (typeof options.now !== 'function') {
      throw new InvalidClockArgumentError(
        'HybridLogicalClock: `now` must be a function returning the physical time in ms (e.g. Date.now)',
      )
    }
    this.physical = options.now
    this.maxSkewMs = options.maxSkewMs ?? 500
    if (!(this.maxSkewMs >= 0)) {
      throw new InvalidClockArgumentError(
        `HybridLogicalClock: maxSkewMs must be >= 0 (or Infinity), got ${this.maxSkewMs}`,
      )
    }
    this.maxCounter = options.maxCounter ?? HLC_MAX_COUNTER
    if (
      !Number.isSafeInteger(this.maxCounter) ||
      this.maxCounter < 1 ||
      this.maxCounter > HLC_MAX_COUNTER
    ) {
      throw new InvalidClockArgumentError(
        `HybridLogicalClock: maxCounter must be an integer in 1..${HLC_MAX_COUNTER}, got ${this.maxCounter}`,
      )
    }
    const start = options.start ?? { wall: 0, counter: 0 }
    checkHlc(start, 'HybridLogicalClock start')
    this.wall = start.wall
    this.counter = start.counter
  }

  /** The timestamp of the last event (does not tick). */
  get last(): HlcTimestamp {
    return { wall: this.wall, counter: this.counter }
  }

  /** A local or send event: l := max(l, pt); the counter grows only if l did not move. */
  now(): HlcTimestamp {
    const pt = this.readPhysical()
    if (pt > this.wall) {
      this.wall = pt
      this.counter = 0
    } else {
      this.counter = this.bump(this.counter)
    }
    return this.last
  }

  /** Alias of `now()`: the timestamp to attach to an outgoing message. */
  send(): HlcTimestamp {
    return this.now()
  }

  /**
   * A receive event: l := max(l, l_msg, pt), and the counter follows whichever parts tied.
   * Throws ClockSkewError (state unchanged) when l_msg is more than maxSkewMs ahead of pt.
   */
  receive(remote: HlcTimestamp): HlcTimestamp {
    checkHlc(remote, 'HybridLogicalClock.receive')
    const pt = this.readPhysical()
    if (remote.wall - pt > this.maxSkewMs) throw new ClockSkewError(remote.wall, pt, this.maxSkewMs)
    const old = this.wall
    const wall = Math.max(old, remote.wall, pt)
    let counter: number
    if (wall === old && wall === remote.wall)
      counter = this.bump(Math.max(this.counter, remote.counter))
    else if (wall === old) counter = this.bump(this.counter)
    else if (wall === remote.wall) counter = this.bump(remote.counter)
    else counter = 0
    this.wall = wall
    this.counter = counter
    return this.last
  }

  private readPhysical(): number {
    const raw = this.physical()
    if (!Number.isFinite(raw) || raw < 0) {
      throw new InvalidClockArgumentError(
        `HybridLogicalClock: the physical clock returned ${raw}; it must return a finite time in ms >= 0`,
      )
    }
    const pt = Math.floor(raw)
    if (pt > HLC_MAX_WALL) {
      throw new ClockOverflowError(`HybridLogicalClock: physical time ${pt} passes 2^48 - 1 ms`)
    }
    return pt
  }

  private bump(counter: number): number {
    if (counter >= this.maxCounter) {
      throw new ClockOverflowError(
        `HybridLogicalClock: counter would pass maxCounter = ${this.maxCounter} (too many events while the physical clock stood still or lagged behind a peer)`,
      )
    }
    return counter + 1
  }
}

/** Validates a timestamp that came from outside (a message, a decoder). */
export function checkHlc(ts: HlcTimestamp, where: string): void {
  if (ts === null || typeof ts !== 'object') {
    throw new InvalidClockArgumentError(`${where}: expected { wall, counter }, got ${String(ts)}`)
  }
  checkCounter(ts.wall, `${where} wall`)
  checkCounter(ts.counter, `${where} counter`)
  if (ts.wall > HLC_MAX_WALL) {
    throw new InvalidClockArgumentError(`${where}: wall ${ts.wall} passes 2^48 - 1 ms`)
  }
  if (ts.counter > HLC_MAX_COUNTER) {
    throw new InvalidClockArgumentError(`${where}: counter ${ts.counter} passes 2^32 - 1`)
  }
}
