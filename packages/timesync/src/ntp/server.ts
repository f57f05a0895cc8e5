/**
 * The server side of one NTP exchange, pure: from a request's bytes and the server's receive and
 * transmit times, the reply's bytes. Sockets and clocks are the caller's (see `createNtpServer`).
 */
import { InvalidArgumentError, NtpRejectedError } from './errors.js'
import {
  decodePacket,
  encodePacket,
  type LeapIndicator,
  NTP_MODE,
  type NtpPacket,
  textToReferenceId,
} from './packet.js'
import { isZeroTimestamp, unixMsToNtp } from './timestamp.js'

/** What the server says about its clock. Every field has a default. */
export interface NtpServerOptions {
  /**
   * 1..15 (default 10: a clock that follows no reference, as chrony's `local` directive
   * advertises it; lower strata would claim a better source than we have).
   */
  stratum?: number
  /**
   * uint32, or up to four ASCII characters (`LOCL`, `GPS`). Default 127.127.1.1 (0x7f7f0101),
   * the conventional id of an undisciplined local clock.
   */
  referenceId?: number | string
  /** log2 s of the clock's precision, -128..127 (default -20: about 1 µs). */
  precision?: number
  /** Round trip to the primary source, ms (default 0). */
  rootDelayMs?: number
  /** Dispersion to the primary source, ms (default 0). */
  rootDispersionMs?: number
  /** Leap indicator 0..3 (default 0; 3 tells clients the clock is unsynchronized). */
  leap?: LeapIndicator
  /** When the clock was last set, Unix ms (default: the request's receive time). */
  referenceMs?: number
}

/** NtpServerOptions checked, with the defaults filled in. */
export interface ResolvedNtpServerOptions {
  stratum: number
  referenceId: number
  precision: number
  rootDelayMs: number
  rootDispersionMs: number
  leap: LeapIndicator
  referenceMs: number | undefined
}

/** The stratum a server claims by default. */
export const DEFAULT_SERVER_STRATUM = 10

/** The reference id a server sends by default: 127.127.1.1. */
export const DEFAULT_SERVER_REFERENCE_ID = 0x7f7f_0101

/** Checks `options` and fills in the defaults; throws InvalidArgumentError. */
export function resolveServerOptions(options: NtpServerOptions = {}): ResolvedNtpServerOptions {
  const stratum = options.stratum ?? DEFAULT_SERVER_STRATUM
  if (!Number.isInteger(stratum) || stratum < 1 || stratum > 15)
    throw new InvalidArgumentError(`a server's stratum is an integer in 1..15, got ${stratum}`)
  const id = options.referenceId ?? DEFAULT_SERVER_REFERENCE_ID
  const referenceId = typeof id === 'string' ? textToReferenceId(id) : id
  if (!Number.isInteger(referenceId) || referenceId < 0 || referenceId > 0xffff_ffff)
    throw new InvalidArgumentError(`a reference id is a uint32, got ${referenceId}`)
  const precision = options.precision ?? -20
  if (!Number.isInteger(precision) || precision < -128 || precision > 127)
    throw new InvalidArgumentError(`precision is log2 seconds in -128..127, got ${precision}`)
  const leap = options.leap ?? 0
  if (![0, 1, 2, 3].includes(leap))
    throw new InvalidArgumentError(`the leap indicator is 0..3, got ${leap}`)
  const rootDelayMs = nonNegative('rootDelayMs', options.rootDelayMs)
  const rootDispersionMs = nonNegative('rootDispersionMs', options.rootDispersionMs)
  if (options.referenceMs !== undefined && !Number.isFinite(options.referenceMs))
    throw new InvalidArgumentError(`referenceMs must be a finite Unix time in ms`)
  return {
    stratum,
    referenceId,
    precision,
    rootDelayMs,
    rootDispersionMs,
    leap,
    referenceMs: options.referenceMs,
  }
}

/**
 * The header of `bytes` when it is a request a server answers; throws NtpRejectedError
 * otherwise: `short`, `version` (not 3 or 4), `mode` (not client mode 3), `zero-transmit`.
 */
export function validateRequest(bytes: Uint8Array): NtpPacket {
  const p = decodePacket(bytes)
  if (p.version !== 3 && p.version !== 4)
    throw new NtpRejectedError('version', `version ${p.version}; only 3 and 4 are answered`)
  if (p.mode !== NTP_MODE.client)
    throw new NtpRejectedError('mode', `a request must be in client mode (3), got mode ${p.mode}`)
  if (isZeroTimestamp(p.transmitTimestamp))
    throw new NtpRejectedError(
      'zero-transmit',
      'the request has a zero transmit timestamp: the client could not match our reply',
    )
  return p
}

/**
 * The reply to `request`, received at `receiveMs` and sent at `transmitMs` (Unix ms on the
 * server's clock): server mode, the request's version and poll, its transmit timestamp copied
 * raw into the origin. Throws NtpRejectedError for a request to leave unanswered, and
 * InvalidArgumentError for bad options or times.
 */
export function answerNtpRequest(
  request: Uint8Array,
  receiveMs: number,
  transmitMs: number,
  options: NtpServerOptions | ResolvedNtpServerOptions = {},
): Uint8Array {
  const o = resolveServerOptions(options)
  const p = validateRequest(request)
  return encodePacket({
    leap: o.leap,
    version: p.version,
    mode: NTP_MODE.server,
    stratum: o.stratum,
    poll: p.poll,
    precision: o.precision,
    rootDelay: o.rootDelayMs / 1000,
    rootDispersion: o.rootDispersionMs / 1000,
    referenceId: o.referenceId,
    referenceTimestamp: unixMsToNtp(o.referenceMs ?? receiveMs),
    originTimestamp: p.transmitTimestamp,
    receiveTimestamp: unixMsToNtp(receiveMs),
    transmitTimestamp: unixMsToNtp(transmitMs),
  })
}

function nonNegative(name: string, value: number | undefined): number {
  if (value === undefined) return 0
  if (!Number.isFinite(value) || value < 0)
    throw new InvalidArgumentError(`${name} must be a finite number of ms >= 0, got ${value}`)
  return value
}
