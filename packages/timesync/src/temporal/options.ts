import { InvalidArgumentError } from '@sd/transport'
import type { DisciplinePolicy } from '../clock/disciplined.js'

export interface TemporalOptions {
  /** Δ: how long after its timestamp a message is delivered (ms). */
  holdBackMs: number
  discipline?: DisciplinePolicy
}

/** The options checked. */
export interface TemporalSettings {
  holdBackMs: number
}

export function resolveOptions(options: TemporalOptions): TemporalSettings {
  const { holdBackMs } = options
  if (!(Number.isFinite(holdBackMs) && holdBackMs >= 0))
    throw new InvalidArgumentError(`holdBackMs must be >= 0, got ${holdBackMs}`)
  return { holdBackMs }
}
