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
  /** The server's root delay, ms (default 0): half of it is in the root distance. */
  rootDelayMs?: number
  /** The server's root dispersion, ms (default 0): all of it is in the root distance. */
  rootDispersionMs?: number
}

/** One exchange's estimate of the server's clock minus ours, with its bounds. */
export interface OnWireResult {
  /** θ = ((T2 − T1) + (T3 − T4)) / 2: the server's clock minus ours, ms. */
  offsetMs: number
  /** δ = (T4 − T1) − (T3 − T2), the round trip spent on the network; at least the precision. */
  delayMs: number
  /**
   * How far the true offset can be from `offsetMs` if the server's reference is right: RFC 5905's
   * root distance λ of this one exchange, root delay / 2 + root dispersion + δ / 2 + ε (ε: the
   * precision of both clocks and the frequency tolerance, 15 ppm, over the round trip). Equal to
   * `rootDistanceMs`; a server that admits a loose reference widens it by as much.
   */
  errorBoundMs: number
  /** λ, the same value as `errorBoundMs`, under the name selection uses. */
  rootDistanceMs: number
  /**
   * The narrower bound to the server's own clock, whatever its reference: δ / 2 + ε (the split
   * of the round trip between the two directions is unknown).
   */
  serverErrorBoundMs: number
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
  // The clocks' precision can make δ slightly negative: the round trip is then known no better
  // than to that precision. (sampleFromReply refuses a δ more negative than the clocks explain.)
  const delayMs = Math.max(t4Ms - t1Ms - (t3Ms - t2Ms), precisionMs, 0)
  const roundTripMs = Math.max(0, t4Ms - t1Ms)
  const serverErrorBoundMs = delayMs / 2 + precisionMs + FREQUENCY_TOLERANCE * roundTripMs
  const rootDistanceMs = serverErrorBoundMs + rootDelayMs / 2 + rootDispersionMs
  return { offsetMs, delayMs, errorBoundMs: rootDistanceMs, rootDistanceMs, serverErrorBoundMs }
}

function nonNegative(name: string, value: number | undefined): number {
  if (value === undefined) return 0
  if (!Number.isFinite(value) || value < 0)
    throw new InvalidArgumentError(`${name} must be a finite number >= 0, got ${value}`)
  return value
}
