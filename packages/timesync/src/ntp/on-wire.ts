/**
 * The on-wire calculation (RFC 5905, section 8) from the four timestamps of one exchange:
 * T1 the client sends, T2 the server receives, T3 the server replies, T4 the client receives.
 * T1 and T4 are read on the client's clock, T2 and T3 on the server's; all in milliseconds.
 */
import { InvalidArgumentError } from './errors.js'

/** The four timestamps of one request and its reply, in ms. */
export interface OnWireTimes {
  t1Ms: number
  t2Ms: number
  t3Ms: number
  t4Ms: number
}

/** What the sample's bounds add to the round trip itself. */
export interface OnWireOptions {
  /** Both clocks' precision added together, ms (default 0): delays are never below it. */
  precisionMs?: number
  /** The server's root delay, ms (default 0): only in `rootDistanceMs`. */
  rootDelayMs?: number
  /** The server's root dispersion, ms (default 0): only in `rootDistanceMs`. */
  rootDispersionMs?: number
}

/** One exchange's estimate of the server's clock minus ours, with its bounds. */
export interface OnWireResult {
  /** θ = ((T2 − T1) + (T3 − T4)) / 2: the server's clock minus ours, ms. */
  offsetMs: number
  /** δ = (T4 − T1) − (T3 − T2), the round trip spent on the network; at least the precision. */
  delayMs: number
  /**
   * How far the true offset to the server's clock can be from `offsetMs`: δ/2 (whatever the
   * split of the round trip between the two directions) plus the precision and the frequency
   * tolerance (15 ppm) over the round trip.
   */
  errorBoundMs: number
  /**
   * The error bound to the server's own reference (RFC 5905's root distance λ, without jitter):
   * `errorBoundMs` plus the server's root delay / 2 and root dispersion. Selection uses this.
   */
  rootDistanceMs: number
}

/** Frequency tolerance RFC 5905 assumes of any clock (PHI): 15 ppm. */
export const FREQUENCY_TOLERANCE = 15e-6

/** Offset, delay and bounds of one exchange; throws InvalidArgumentError for a non-finite input. */
export function onWire(times: OnWireTimes, options: OnWireOptions = {}): OnWireResult {
  const { t1Ms, t2Ms, t3Ms, t4Ms } = times
  for (const [name, value] of Object.entries(times))
    if (!Number.isFinite(value))
      throw new InvalidArgumentError(`on-wire timestamp ${name} must be finite, got ${value}`)
  const precisionMs = nonNegative('precisionMs', options.precisionMs)
  const rootDelayMs = nonNegative('rootDelayMs', options.rootDelayMs)
  const rootDispersionMs = nonNegative('rootDispersionMs', options.rootDispersionMs)
  const offsetMs = (t2Ms - t1Ms + (t3Ms - t4Ms)) / 2
  // A stepped clock or a server that answers before it receives can make δ negative: the round
  // trip is then known no better than to the precision of the clocks.
  const delayMs = Math.max(t4Ms - t1Ms - (t3Ms - t2Ms), precisionMs, 0)
  const roundTripMs = Math.max(0, t4Ms - t1Ms)
  const errorBoundMs = delayMs / 2 + precisionMs + FREQUENCY_TOLERANCE * roundTripMs
  return {
    offsetMs,
    delayMs,
    errorBoundMs,
    rootDistanceMs: errorBoundMs + rootDelayMs / 2 + rootDispersionMs,
  }
}

function nonNegative(name: string, value: number | undefined): number {
  if (value === undefined) return 0
  if (!Number.isFinite(value) || value < 0)
    throw new InvalidArgumentError(`${name} must be a finite number >= 0, got ${value}`)
  return value
}
