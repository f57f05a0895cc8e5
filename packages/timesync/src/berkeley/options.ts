import { InvalidArgumentError, type NodeId } from '@sd/transport'
import type { DisciplinePolicy } from '../clock/disciplined.js'

export interface BerkeleyOptions {
  /** The master at start; `{ type: 'set-master' }` moves it (an election can pick it). */
  master?: NodeId
  /** Offsets farther than this from the median are left out of the average. Default 50 ms. */
  thresholdMs?: number
  /** How long the master waits for answers (ms). Default 100. */
  pollTimeoutMs?: number
  /** The master runs a round at start (default true) and then every `periodMs`, if given. */
  syncOnStart?: boolean
  periodMs?: number
  /** A known lower bound on one-way delay: it tightens the bound. Default 0. */
  minDelayMs?: number
  /** The largest rate error of the clocks, for the bounds. Default 1e-4. */
  maxDrift?: number
  discipline?: DisciplinePolicy
}

/** The options with their defaults filled in, every value checked. */
export interface BerkeleySettings {
  thresholdMs: number
  pollTimeoutMs: number
  syncOnStart: boolean
  periodMs: number | undefined
  minDelayMs: number
  maxDrift: number
}

export const DEFAULT_THRESHOLD_MS = 50
export const DEFAULT_POLL_TIMEOUT_MS = 100
export const DEFAULT_MAX_DRIFT = 1e-4

function checkPositive(name: string, v: number): void {
  if (!(Number.isFinite(v) && v > 0))
    throw new InvalidArgumentError(`${name} must be > 0, got ${v}`)
}

export function resolveOptions(options: BerkeleyOptions = {}): BerkeleySettings {
  const {
    thresholdMs = DEFAULT_THRESHOLD_MS,
    pollTimeoutMs = DEFAULT_POLL_TIMEOUT_MS,
    syncOnStart = true,
    periodMs,
    minDelayMs = 0,
    maxDrift = DEFAULT_MAX_DRIFT,
  } = options
  if (!(thresholdMs >= 0))
    throw new InvalidArgumentError(`thresholdMs must be >= 0, got ${thresholdMs}`)
  checkPositive('pollTimeoutMs', pollTimeoutMs)
  if (periodMs !== undefined) checkPositive('periodMs', periodMs)
  if (!(minDelayMs >= 0))
    throw new InvalidArgumentError(`minDelayMs must be >= 0, got ${minDelayMs}`)
  if (!(maxDrift >= 0)) throw new InvalidArgumentError(`maxDrift must be >= 0, got ${maxDrift}`)
  return { thresholdMs, pollTimeoutMs, syncOnStart, periodMs, minDelayMs, maxDrift }
}
