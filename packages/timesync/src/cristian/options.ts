import { InvalidArgumentError, type NodeId } from '@sd/transport'
import type { DisciplinePolicy } from '../clock/disciplined.js'

export interface CristianOptions {
  /** The time server; every other node is a client. */
  server: NodeId
  /** Requests per round; the least round trip wins. Default 4. */
  samples?: number
  /** How long a client waits for each answer (ms of its clock). Default 100. */
  sampleTimeoutMs?: number
  /** Run a round at start (default true) and then every `periodMs`, if given. */
  syncOnStart?: boolean
  periodMs?: number
  /** The server's handling time I, spent before it answers (ms). Default 0. */
  handlingMs?: number
  /** A known lower bound on one-way delay: it tightens the error bound. Default 0. */
  minDelayMs?: number
  /** The largest rate error of the clocks, for the error bound. Default 1e-4 (generous quartz). */
  maxDrift?: number
  /** The clocks' tick, for the error bound. Default 0. */
  resolutionMs?: number
  /** How the client's software clock applies corrections. */
  discipline?: DisciplinePolicy
}

/** The options with their defaults filled in, every value checked. */
export interface CristianSettings {
  server: NodeId
  samples: number
  sampleTimeoutMs: number
  syncOnStart: boolean
  periodMs: number | undefined
  handlingMs: number
  minDelayMs: number
  maxDrift: number
  resolutionMs: number
}

export const DEFAULT_SAMPLES = 4
export const DEFAULT_SAMPLE_TIMEOUT_MS = 100
export const DEFAULT_MAX_DRIFT = 1e-4

const positive = (name: string, v: number) => {
  if (!(Number.isFinite(v) && v > 0))
    throw new InvalidArgumentError(`${name} must be > 0, got ${v}`)
}
const nonNegative = (name: string, v: number) => {
  if (!(Number.isFinite(v) && v >= 0))
    throw new InvalidArgumentError(`${name} must be >= 0, got ${v}`)
}

export function resolveOptions(options: CristianOptions): CristianSettings {
  const {
    server,
    samples = DEFAULT_SAMPLES,
    sampleTimeoutMs = DEFAULT_SAMPLE_TIMEOUT_MS,
    syncOnStart = true,
    periodMs,
    handlingMs = 0,
    minDelayMs = 0,
    maxDrift = DEFAULT_MAX_DRIFT,
    resolutionMs = 0,
  } = options
  if (!Number.isInteger(samples) || samples < 1)
    throw new InvalidArgumentError(`samples must be an integer >= 1, got ${samples}`)
  positive('sampleTimeoutMs', sampleTimeoutMs)
  if (periodMs !== undefined) positive('periodMs', periodMs)
  nonNegative('handlingMs', handlingMs)
  nonNegative('minDelayMs', minDelayMs)
  nonNegative('maxDrift', maxDrift)
  if (!(maxDrift < 1)) throw new InvalidArgumentError(`maxDrift must be below 1, got ${maxDrift}`)
  nonNegative('resolutionMs', resolutionMs)
  return {
    server,
    samples,
    sampleTimeoutMs,
    syncOnStart,
    periodMs,
    handlingMs,
    minDelayMs,
    maxDrift,
    resolutionMs,
  }
}
