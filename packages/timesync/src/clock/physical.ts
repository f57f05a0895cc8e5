import { InvalidArgumentError } from '@sd/transport'

/** A quartz oscillator's typical rate error: about 1 s gained or lost in 11.6 days. */
export const QUARTZ_DRIFT = 1e-6

export interface PhysicalClockSettings {
  /** Reading minus true time at true time 0, in ms. Default 0. */
  offsetMs?: number
  /** Rate error: 1e-6 gains 1 ms every 1000 s. Must be in (-1, 1). Default 0. */
  drift?: number
  /** The tick: readings are whole multiples of it (ms). Default 0, a continuous reading. */
  resolutionMs?: number
}

/**
 * A hardware clock as the texts model it: H(t) = offset + (1 + drift) t, read in whole ticks.
 * For demos and tests outside the simulator (the simulator gives each node its own clock through
 * `SimNetwork.addNode(id, { offset, drift })`, which `ctx.now()` reads).
 */
export class PhysicalClock {
  readonly offsetMs: number
  readonly drift: number
  readonly resolutionMs: number

  constructor(settings: PhysicalClockSettings = {}) {
    const { offsetMs = 0, drift = 0, resolutionMs = 0 } = settings
    if (!Number.isFinite(offsetMs))
      throw new InvalidArgumentError(`offsetMs must be a finite number, got ${offsetMs}`)
    if (!(drift > -1 && drift < 1))
      throw new InvalidArgumentError(`drift must be in (-1, 1), got ${drift}`)
    if (!(resolutionMs >= 0 && Number.isFinite(resolutionMs)))
      throw new InvalidArgumentError(`resolutionMs must be >= 0, got ${resolutionMs}`)
    this.offsetMs = offsetMs
    this.drift = drift
    this.resolutionMs = resolutionMs
  }

  /** The reading at true time `trueMs`: never decreasing, since 1 + drift > 0. */
  read(trueMs: number): number {
    const exact = this.offsetMs + (1 + this.drift) * trueMs
    if (this.resolutionMs === 0) return exact
    return Math.floor(exact / this.resolutionMs) * this.resolutionMs
  }

  /** The largest gap between two such clocks after `elapsedMs` if they agreed at its start. */
  static divergence(elapsedMs: number, maxDrift: number): number {
    return 2 * maxDrift * elapsedMs
  }
}
