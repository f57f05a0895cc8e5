/**
 * Watches a node's wall clock against its monotonic one, as the interval clock does: between two
 * looks both advance alike unless the wall clock was stepped (an operator, another daemon, the
 * simulator's `stepClock`). Samples measured on the wall clock before a step mean nothing after.
 */
import { isFiniteNumber } from '@sd/transport'
import { FREQUENCY_TOLERANCE } from '../ntp/on-wire.js'
import { checkSnapshot } from '../snapshot-check.js'

/** A difference in progress beyond this (ms, on top of 2 × PHI of the elapsed time) is a step. */
export const STEP_TOLERANCE_MS = 1

/** Two clocks within PHI (15 ppm) of true rate part by at most 2 PHI of the time between looks. */
const RATE_TOLERANCE = 2 * FREQUENCY_TOLERANCE

const READING_FIELDS = { wallMs: isFiniteNumber, monotonicMs: isFiniteNumber }

export class WallStepWatch {
  #last: { wallMs: number; monotonicMs: number } | undefined

  /**
   * Takes a reading of both clocks; returns how far the wall clock moved against the monotonic
   * one since the last reading (ms) when that is a step, otherwise undefined.
   */
  observe(wallMs: number, monotonicMs: number): number | undefined {
    const last = this.#last
    this.#last = { wallMs, monotonicMs }
    if (last === undefined) return undefined
    const elapsedMs = monotonicMs - last.monotonicMs
    const movedMs = wallMs - last.wallMs - elapsedMs
    return Math.abs(movedMs) > STEP_TOLERANCE_MS + RATE_TOLERANCE * Math.abs(elapsedMs)
      ? movedMs
      : undefined
  }

  /** The last reading, as plain data (null before the first). */
  snapshot(): { wallMs: number; monotonicMs: number } | null {
    return this.#last === undefined ? null : { ...this.#last }
  }

  /** Takes on what `snapshot()` gave (null: no reading yet); refuses another shape. */
  restore(snapshot: unknown): void {
    if (snapshot === null) {
      this.#last = undefined
      return
    }
    const { wallMs, monotonicMs } = checkSnapshot('WallStepWatch', READING_FIELDS, snapshot)
    this.#last = { wallMs, monotonicMs }
  }
}
