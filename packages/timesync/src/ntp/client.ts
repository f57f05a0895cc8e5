/**
 * The client side of one NTP exchange, pure: it builds a request for a given time and judges a
 * reply against it. Sockets and clocks are the caller's (see `queryNtp` for the UDP one).
 */
import { InvalidArgumentError, NtpRejectedError } from './errors.js'
import { FREQUENCY_TOLERANCE, onWire } from './on-wire.js'
import {
  decodePacket,
  describeReferenceId,
  encodePacket,
  type LeapIndicator,
  NTP_MODE,
  NTP_VERSION,
  type NtpPacket,
  referenceIdToText,
} from './packet.js'
import {
  isZeroTimestamp,
  log2SecondsToMs,
  type NtpTimestamp,
  ntpDifferenceMs,
  ntpTimestampEquals,
  ntpToUnixMs,
  unixMsToNtp,
  ZERO_TIMESTAMP,
} from './timestamp.js'

/** A request on its way: what to send, and what the reply must match. */
export interface NtpRequest {
  /** The 48 bytes to send. */
  bytes: Uint8Array
  /** The transmit timestamp as sent: a valid reply carries it back as its origin, bit for bit. */
  transmit: NtpTimestamp
  /** T1 on the client's clock, ms (the transmit timestamp may be partly random). */
  t1Ms: number
}

/** How a request is built. */
export interface NtpRequestOptions {
  /**
   * Uniform numbers in [0, 1): when given, the transmit fraction is random, so an off-path
   * attacker cannot guess the origin a reply must carry; T1 is then known only to the client.
   * Without it, the transmit timestamp is T1 itself (as SNTP clients send it).
   */
  random?: () => number
  /** log2 of the client's poll interval in seconds, sent as is (default 6: 64 s). */
  poll?: number
  /** log2 of the client clock's precision in seconds (default -20: about 1 µs). */
  precision?: number
}

/** log2 s of the precision assumed for a clock read through performance.now (about 1 µs). */
export const DEFAULT_PRECISION_LOG2 = -20

/**
 * RFC 5905's MAXDISP, 16 s: a server whose root delay / 2 + root dispersion reaches it admits it
 * does not know the time, and a sample whose root distance reaches it says nothing.
 */
export const MAX_ROOT_DISTANCE_MS = 16_000

/**
 * The largest offset a sample may show unless the caller says otherwise (`maxOffsetMs`): one
 * year. A kept clock is never that far off, while an absurd or hostile reply claims decades; a
 * machine whose clock really is years off (no RTC) lifts it with Infinity.
 */
export const DEFAULT_MAX_OFFSET_MS = 365.25 * 86_400_000

/** How `sampleFromReply` judges a reply beyond the packet itself. */
export interface SampleOptions {
  /** log2 s of our clock's precision (default -20, see DEFAULT_PRECISION_LOG2). */
  clientPrecision?: number
  /** Offsets beyond ± this, ms, are refused as `offset-limit` (default DEFAULT_MAX_OFFSET_MS). */
  maxOffsetMs?: number
}

/** One valid exchange, measured. */
export interface NtpSample {
  /** θ: the server's clock minus ours, ms (positive: the server is ahead). */
  offsetMs: number
  /** δ: the round trip on the network, ms. */
  delayMs: number
  /**
   * The true offset is within offsetMs ± errorBoundMs if the server's reference is right: the
   * root distance λ = rootDelay / 2 + rootDispersion + δ / 2 + ε, ms (see `onWire`).
   */
  errorBoundMs: number
  /** λ again (the same value as errorBoundMs), under the name selection uses, ms. */
  rootDistanceMs: number
  /** The narrower bound to the server's own clock, whatever its reference: δ / 2 + ε, ms. */
  serverErrorBoundMs: number
  stratum: number
  /** The raw reference id (uint32). */
  referenceId: number
  /** The reference id as people read it: `LOCL`, `GPS`, or a dotted quad. */
  reference: string
  leap: LeapIndicator
  version: number
  /** log2 s of the server clock's precision. */
  precision: number
  rootDelayMs: number
  rootDispersionMs: number
  /** The four timestamps, ms (T1, T4 on our clock; T2, T3 on the server's). */
  t1Ms: number
  t2Ms: number
  t3Ms: number
  t4Ms: number
}

/** A client-mode (3), version 4 request sent at `t1Ms` (a Unix time in ms on our clock). */
export function createNtpRequest(t1Ms: number, options: NtpRequestOptions = {}): NtpRequest {
  const t1 = unixMsToNtp(t1Ms)
  let fraction = t1.fraction
  if (options.random !== undefined) {
    const r = options.random()
    if (!(r >= 0 && r < 1))
      throw new InvalidArgumentError(`random() must return a number in [0, 1), got ${r}`)
    fraction = Math.floor(r * 2 ** 32)
  }
  const transmit: NtpTimestamp = { seconds: t1.seconds, fraction }
  const bytes = encodePacket({
    leap: 0,
    version: NTP_VERSION,
    mode: NTP_MODE.client,
    stratum: 0,
    poll: options.poll ?? 6,
    precision: options.precision ?? DEFAULT_PRECISION_LOG2,
    rootDelay: 0,
    rootDispersion: 0,
    referenceId: 0,
    referenceTimestamp: ZERO_TIMESTAMP,
    originTimestamp: ZERO_TIMESTAMP,
    receiveTimestamp: ZERO_TIMESTAMP,
    // A zero transmit would be refused by servers; a time in 1900 cannot be rounded to it.
    transmitTimestamp: isZeroTimestamp(transmit) ? { seconds: 0, fraction: 1 } : transmit,
  })
  return { bytes, transmit: decodePacket(bytes).transmitTimestamp, t1Ms }
}

/**
 * The reply's header when `bytes` is a valid reply to `request`; throws NtpRejectedError
 * otherwise. Checks in this order: length, version (3 or 4), server mode, origin (before any
 * kiss is believed, so a forged kiss cannot silence us), kiss-o'-death, stratum (1..15), leap
 * indicator (not 3), transmit timestamp (not zero), receive timestamp (not zero), root delay / 2
 * + root dispersion (below 16 s), reference timestamp (not after the transmit timestamp).
 */
export function validateReply(request: { transmit: NtpTimestamp }, bytes: Uint8Array): NtpPacket {
  const p = decodePacket(bytes)
  if (p.version !== 3 && p.version !== 4)
    throw new NtpRejectedError('version', `version ${p.version}; only 3 and 4 are understood`)
  if (p.mode !== NTP_MODE.server)
    throw new NtpRejectedError('mode', `a reply must be in server mode (4), got mode ${p.mode}`)
  if (!ntpTimestampEquals(p.originTimestamp, request.transmit))
    throw new NtpRejectedError(
      'origin-mismatch',
      `origin ${hex(p.originTimestamp)} is not our transmit timestamp ${hex(request.transmit)}: a stale, duplicate or forged reply`,
    )
  if (p.stratum === 0) {
    const code = referenceIdToText(p.referenceId)
    if (code !== undefined)
      throw new NtpRejectedError(
        'kiss-o-death',
        `the server sent the kiss-o'-death ${code}${KISS_MEANING[code] ? ` (${KISS_MEANING[code]})` : ''}`,
        code,
      )
    throw new NtpRejectedError('stratum', 'stratum 0 without a kiss code')
  }
  if (p.stratum >= 16)
    throw new NtpRejectedError(
      'stratum',
      `stratum ${p.stratum}: ${p.stratum === 16 ? 'the server is unsynchronized' : 'reserved'}`,
    )
  if (p.leap === 3)
    throw new NtpRejectedError(
      'unsynchronized',
      'leap indicator 3: the server clock is unsynchronized',
    )
  if (isZeroTimestamp(p.transmitTimestamp))
    throw new NtpRejectedError('zero-transmit', 'the reply has a zero transmit timestamp')
  if (isZeroTimestamp(p.receiveTimestamp))
    throw new NtpRejectedError('zero-receive', 'the reply has a zero receive timestamp (T2)')
  const rootMs = (p.rootDelay / 2 + p.rootDispersion) * 1000
  if (rootMs >= MAX_ROOT_DISTANCE_MS)
    throw new NtpRejectedError(
      'root-distance',
      `root delay / 2 + root dispersion is ${ms(rootMs)}; at ${MAX_ROOT_DISTANCE_MS / 1000} s or more the server does not know the time`,
    )
  // Compared modulo 2^32 s, so right across the 2036 rollover; zero (never set) is before all,
  // as RFC 5905's comparison of the raw 64 bits has it.
  const referenceLeadMs = ntpDifferenceMs(p.referenceTimestamp, p.transmitTimestamp)
  if (!isZeroTimestamp(p.referenceTimestamp) && referenceLeadMs > 0)
    throw new NtpRejectedError(
      'reference-after-transmit',
      `the reference timestamp is ${ms(referenceLeadMs)} after the transmit timestamp: the clock cannot have been set after the reply left`,
    )
  return p
}

/**
 * The sample of a reply received at `t4Ms` (our clock, ms); throws NtpRejectedError when it is
 * no valid reply to `request` (see `validateReply`), or when its timestamps cannot all be true:
 * `transmit-before-receive` (T3 before T2), `negative-delay` (the server held the request longer
 * than our round trip lasted), `root-distance` (λ of 16 s or more), `offset-limit` (beyond
 * `maxOffsetMs`). The tolerances are the clocks' precision and frequency tolerance. A number as
 * the last argument is `clientPrecision`, as before `SampleOptions` existed.
 */
export function sampleFromReply(
  request: NtpRequest,
  bytes: Uint8Array,
  t4Ms: number,
  options: SampleOptions | number = {},
): NtpSample {
  const { clientPrecision = DEFAULT_PRECISION_LOG2, maxOffsetMs = DEFAULT_MAX_OFFSET_MS } =
    typeof options === 'number' ? { clientPrecision: options } : options
  if (!(maxOffsetMs > 0))
    throw new InvalidArgumentError(`maxOffsetMs must be a number > 0, got ${maxOffsetMs}`)
  const p = validateReply(request, bytes)
  const { t1Ms } = request
  // The server's timestamps are placed in the era nearest our own clock.
  const t2Ms = ntpToUnixMs(p.receiveTimestamp, t1Ms)
  const t3Ms = ntpToUnixMs(p.transmitTimestamp, t1Ms)
  const serverPrecisionMs = log2SecondsToMs(p.precision)
  const precisionMs = serverPrecisionMs + log2SecondsToMs(clientPrecision)
  if (t3Ms < t2Ms - serverPrecisionMs)
    throw new NtpRejectedError(
      'transmit-before-receive',
      `the server says it replied ${ms(t2Ms - t3Ms)} before it received the request`,
    )
  // δ below zero by more than the clocks can explain: the server's hold (T3 − T2) and our round
  // trip (T4 − T1) cannot both be true. δ would be clamped, and the bound would lie.
  const heldMs = t3Ms - t2Ms
  const roundTripMs = t4Ms - t1Ms
  const slackMs = 2 * precisionMs + FREQUENCY_TOLERANCE * Math.abs(roundTripMs)
  if (roundTripMs - heldMs < -slackMs)
    throw new NtpRejectedError(
      'negative-delay',
      `the server says it held the request ${ms(heldMs)}, but the whole round trip took ${ms(roundTripMs)}`,
    )
  const rootDelayMs = p.rootDelay * 1000
  const rootDispersionMs = p.rootDispersion * 1000
  const wire = onWire({ t1Ms, t2Ms, t3Ms, t4Ms }, { precisionMs, rootDelayMs, rootDispersionMs })
  if (wire.rootDistanceMs >= MAX_ROOT_DISTANCE_MS)
    throw new NtpRejectedError(
      'root-distance',
      `the sample's root distance is ${ms(wire.rootDistanceMs)}: at ${MAX_ROOT_DISTANCE_MS / 1000} s or more it says nothing`,
    )
  if (Math.abs(wire.offsetMs) > maxOffsetMs)
    throw new NtpRejectedError(
      'offset-limit',
      `an offset of ${ms(wire.offsetMs)} is beyond the limit of ±${ms(maxOffsetMs)} (maxOffsetMs)`,
    )
  return {
    ...wire,
    stratum: p.stratum,
    referenceId: p.referenceId,
    reference: describeReferenceId(p.stratum, p.referenceId),
    leap: p.leap,
    version: p.version,
    precision: p.precision,
    rootDelayMs,
    rootDispersionMs,
    t1Ms,
    t2Ms,
    t3Ms,
    t4Ms,
  }
}

/** The kiss codes RFC 5905 (section 7.4) says a client must act on. */
const KISS_MEANING: Record<string, string> = {
  DENY: 'access denied: stop querying this server',
  RSTR: 'access restricted: stop querying this server',
  RATE: 'rate exceeded: query less often',
}

function hex(t: NtpTimestamp): string {
  return `${t.seconds.toString(16).padStart(8, '0')}.${t.fraction.toString(16).padStart(8, '0')}`
}

/** A duration for people: ms below 10 s, else seconds, else days or years. */
function ms(value: number): string {
  const a = Math.abs(value)
  if (a < 10_000) return `${value.toFixed(3)} ms`
  if (a < 86_400_000) return `${(value / 1000).toFixed(3)} s`
  if (a < 365.25 * 86_400_000) return `${(value / 86_400_000).toFixed(1)} days`
  return `${(value / (365.25 * 86_400_000)).toFixed(1)} years`
}
