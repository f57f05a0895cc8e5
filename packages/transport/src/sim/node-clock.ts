import { InvalidArgumentError } from '../errors.js'

/** A node's physical clock: local = base + (t - t0) * (1 + drift), t being virtual (true) time. */
export interface ClockSettings {
  /** Offset from true time in ms, applied now. */
  offset?: number
  /** Rate error: 1e-6 gains 1 ms every 1000 s. Must be in (-1, 1). */
  drift?: number
  /** The tick, ms: readings are whole multiples of it (floored). 0, the default, reads exactly. */
  resolution?: number
}

/**
 * A node's two clocks. The wall clock (`read`) has an offset and can be set or stepped; the
 * monotonic clock (`monotonic`) runs at the same rate (one oscillator) but never jumps: it starts
 * at the true time the node was added and only its rate changes.
 */
export class NodeClock {
  private t0 = 0
  private base = 0
  private rate = 1
  private tick = 0
  private monoT0 = 0
  private monoBase = 0

  constructor(t = 0) {
    this.monoT0 = t
    this.monoBase = t
  }

  /** `save()`, until a field changes: checkpoints share it. */
  private saved: readonly number[] | undefined

  /** Every field, for a checkpoint (`load` puts them back). */
  save(): readonly number[] {
    this.saved ??= [this.t0, this.base, this.rate, this.tick, this.monoT0, this.monoBase]
    return this.saved
  }

  load(state: readonly number[]): void {
    this.saved = state
    this.t0 = state[0]!
    this.base = state[1]!
    this.rate = state[2]!
    this.tick = state[3]!
    this.monoT0 = state[4]!
    this.monoBase = state[5]!
  }

  /** The monotonic reading at true time t. */
  monotonic(t: number): number {
    return this.monoBase + (t - this.monoT0) * this.rate
  }

  /** Steps the wall clock by `deltaMs` at true time t (forward or back); the monotonic one goes on. */
  step(t: number, deltaMs: number, where: string): void {
    if (typeof deltaMs !== 'number' || !Number.isFinite(deltaMs)) {
      throw new InvalidArgumentError(
        `${where}: a clock step must be a finite number of ms, got ${deltaMs}`,
      )
    }
    const reading = this.exact(t) + deltaMs
    this.t0 = t
    this.base = reading
    this.saved = undefined
  }

  read(t: number): number {
    const exact = this.exact(t)
    return this.tick === 0 ? exact : Math.floor(exact / this.tick) * this.tick
  }

  private exact(t: number): number {
    return this.base + (t - this.t0) * this.rate
  }

  get resolution(): number {
    return this.tick
  }

  /** Local ms to true ms, for timers: a fast clock fires its timers early. */
  toTrue(localMs: number): number {
    return localMs / this.rate
  }

  get drift(): number {
    return this.rate - 1
  }

  offsetAt(t: number): number {
    return this.read(t) - t
  }

  /** Applies new settings at true time t; an omitted offset keeps the reading continuous. */
  set(t: number, settings: ClockSettings, where: string): void {
    const { offset, drift, resolution } = settings
    if (offset !== undefined && (typeof offset !== 'number' || !Number.isFinite(offset))) {
      throw new InvalidArgumentError(
        `${where}: clock offset must be a finite number, got ${offset}`,
      )
    }
    if (drift !== undefined && (typeof drift !== 'number' || !(drift > -1 && drift < 1))) {
      throw new InvalidArgumentError(`${where}: clock drift must be in (-1, 1), got ${drift}`)
    }
    if (
      resolution !== undefined &&
      (typeof resolution !== 'number' || !Number.isFinite(resolution) || resolution < 0)
    ) {
      throw new InvalidArgumentError(`${where}: clock resolution must be >= 0, got ${resolution}`)
    }
    const reading = offset === undefined ? this.exact(t) : t + offset
    this.monoBase = this.monotonic(t)
    this.monoT0 = t
    this.t0 = t
    this.base = reading
    if (drift !== undefined) this.rate = 1 + drift
    if (resolution !== undefined) this.tick = resolution
    this.saved = undefined
  }
}
