/**
 * The client side of one NTP exchange, pure: it builds a request for a given time and judges a
 * reply against it. Sockets and clocks are the caller's (see `queryNtp` for the UDP one).
 */
import { InvalidArgumentError, NtpRejectedError } from './errors.js'
import { onWire } from './on-wire.js'
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

/** One valid exchange, measured. */
export interface NtpSample {
  /** θ: the server's clock minus ours, ms (positive: the server is ahead). */
  offsetMs: number
  /** δ: the round trip on the network, ms. */
  delayMs: number
  /** The true offset to the server's clock is within offsetMs ± errorBoundMs (see `onWire`). */
  errorBoundMs: number
  /** The bound to the server's reference: errorBoundMs + rootDelay / 2 + rootDispersion, ms. */
  rootDistanceMs: number
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
 * indicator (not 3), transmit timestamp (not zero).
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
  return p
}

/**
 * The sample of a reply received at `t4Ms` (our clock, ms); throws NtpRejectedError when it is
 * no valid reply to `request` (see `validateReply`). `clientPrecision` is log2 s (default -20).
 */
export function sampleFromReply(
  request: NtpRequest,
  bytes: Uint8Array,
  t4Ms: number,
  clientPrecision: number = DEFAULT_PRECISION_LOG2,
): NtpSample {
  const p = validateReply(request, bytes)
  const { t1Ms } = request
  // The server's timestamps are placed in the era nearest our own clock.
  const t2Ms = ntpToUnixMs(p.receiveTimestamp, t1Ms)
  const t3Ms = ntpToUnixMs(p.transmitTimestamp, t1Ms)
  const rootDelayMs = p.rootDelay * 1000
  const rootDispersionMs = p.rootDispersion * 1000
  const wire = onWire(
    { t1Ms, t2Ms, t3Ms, t4Ms },
    {
      precisionMs: log2SecondsToMs(p.precision) + log2SecondsToMs(clientPrecision),
      rootDelayMs,
      rootDispersionMs,
    },
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
