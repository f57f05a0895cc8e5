/**
 * The 48-byte NTP packet header (RFC 5905, figure 8). Extension fields and a MAC may follow on the
 * wire; decoding ignores them and encoding never writes them.
 */
import { InvalidArgumentError, NtpRejectedError } from './errors.js'
import { type NtpTimestamp, secondsToShort, shortToSeconds } from './timestamp.js'

/** Bytes of the header, the smallest valid NTP packet. */
export const NTP_PACKET_BYTES = 48

/** Leap indicator: 0 none, 1 last minute has 61 s, 2 last minute has 59 s, 3 unsynchronized. */
export type LeapIndicator = 0 | 1 | 2 | 3

/** Association modes (3 bits). */
export const NTP_MODE = Object.freeze({
  reserved: 0,
  symmetricActive: 1,
  symmetricPassive: 2,
  client: 3,
  server: 4,
  broadcast: 5,
  control: 6,
  private: 7,
} as const)

/** A mode as it appears in the 3-bit field. */
export type NtpMode = (typeof NTP_MODE)[keyof typeof NTP_MODE]

/** Every value of the 2-bit and 3-bit fields, indexed by the bits: a read needs no cast. */
const LEAP_INDICATORS: readonly LeapIndicator[] = [0, 1, 2, 3]
const MODES: readonly NtpMode[] = [0, 1, 2, 3, 4, 5, 6, 7]

/** The version this implementation sends; it accepts 3 and 4. */
export const NTP_VERSION = 4

/** The header's fields, decoded (timestamps stay raw). */
export interface NtpPacket {
  leap: LeapIndicator
  /** 3 bits; valid packets carry 3 or 4. */
  version: number
  mode: NtpMode
  /** 0 unspecified (a kiss-o'-death), 1 primary, 2..15 secondary, 16 unsynchronized. */
  stratum: number
  /** log2 of the poll interval in seconds (signed). */
  poll: number
  /** log2 of the clock's precision in seconds (signed, e.g. -20 for about 1 µs). */
  precision: number
  /** Round-trip delay to the primary source, seconds (16.16 on the wire). */
  rootDelay: number
  /** Dispersion to the primary source, seconds (16.16 on the wire). */
  rootDispersion: number
  /**
   * uint32: four ASCII characters at stratum 0 (a kiss code) and 1 (the reference clock: GPS,
   * PPS...), else an IPv4 address or the hash of an IPv6 address of the upstream server.
   */
  referenceId: number
  /** When the clock was last set or corrected. */
  referenceTimestamp: NtpTimestamp
  /** T1: the client's transmit timestamp, echoed by the server. */
  originTimestamp: NtpTimestamp
  /** T2: when the server received the request. */
  receiveTimestamp: NtpTimestamp
  /** T3 (the server's reply) or T1 (the client's request): when the packet left. */
  transmitTimestamp: NtpTimestamp
}

/** The 48 bytes of `packet`; throws InvalidArgumentError for a field out of its range. */
export function encodePacket(packet: NtpPacket): Uint8Array {
  checkInteger('leap', packet.leap, 0, 3)
  checkInteger('version', packet.version, 0, 7)
  checkInteger('mode', packet.mode, 0, 7)
  checkInteger('stratum', packet.stratum, 0, 255)
  checkInteger('poll', packet.poll, -128, 127)
  checkInteger('precision', packet.precision, -128, 127)
  checkInteger('referenceId', packet.referenceId, 0, 0xffff_ffff)
  const bytes = new Uint8Array(NTP_PACKET_BYTES)
  const view = new DataView(bytes.buffer)
  view.setUint8(0, (packet.leap << 6) | (packet.version << 3) | packet.mode)
  view.setUint8(1, packet.stratum)
  view.setInt8(2, packet.poll)
  view.setInt8(3, packet.precision)
  view.setUint32(4, secondsToShort(checkSeconds('rootDelay', packet.rootDelay)))
  view.setUint32(8, secondsToShort(checkSeconds('rootDispersion', packet.rootDispersion)))
  view.setUint32(12, packet.referenceId)
  writeTimestamp(view, 16, 'referenceTimestamp', packet.referenceTimestamp)
  writeTimestamp(view, 24, 'originTimestamp', packet.originTimestamp)
  writeTimestamp(view, 32, 'receiveTimestamp', packet.receiveTimestamp)
  writeTimestamp(view, 40, 'transmitTimestamp', packet.transmitTimestamp)
  return bytes
}

/**
 * The header of an NTP packet. Only the length is checked here (NtpRejectedError `short` below
 * 48 bytes): every other field is returned as it came, for the client or server to judge.
 * Bytes after the header (extension fields, MAC) are ignored.
 */
export function decodePacket(bytes: Uint8Array): NtpPacket {
  if (!(bytes instanceof Uint8Array) || bytes.byteLength < NTP_PACKET_BYTES)
    throw new NtpRejectedError(
      'short',
      `an NTP packet has at least ${NTP_PACKET_BYTES} bytes, got ${bytes instanceof Uint8Array ? bytes.byteLength : typeof bytes}`,
    )
  // A Node Buffer may be a window on a larger pool: read through its offset.
  const view = new DataView(bytes.buffer, bytes.byteOffset, NTP_PACKET_BYTES)
  const first = view.getUint8(0)
  return {
    leap: LEAP_INDICATORS[first >>> 6]!,
    version: (first >>> 3) & 0b111,
    mode: MODES[first & 0b111]!,
    stratum: view.getUint8(1),
    poll: view.getInt8(2),
    precision: view.getInt8(3),
    rootDelay: shortToSeconds(view.getUint32(4)),
    rootDispersion: shortToSeconds(view.getUint32(8)),
    referenceId: view.getUint32(12),
    referenceTimestamp: readTimestamp(view, 16),
    originTimestamp: readTimestamp(view, 24),
    receiveTimestamp: readTimestamp(view, 32),
    transmitTimestamp: readTimestamp(view, 40),
  }
}

/**
 * The reference id as text when its four bytes are printable ASCII (trailing NULs dropped), as
 * at stratum 0 and 1 (`RATE`, `GPS`, `LOCL`); undefined otherwise.
 */
export function referenceIdToText(referenceId: number): string | undefined {
  let text = ''
  let ended = false
  for (let shift = 24; shift >= 0; shift -= 8) {
    const code = (referenceId >>> shift) & 0xff
    if (code === 0) {
      ended = true
      continue
    }
    if (ended || code < 0x20 || code > 0x7e) return undefined
    text += String.fromCharCode(code)
  }
  return text === '' ? undefined : text
}

/** The reference id of up to four printable ASCII characters (padded with NULs): `LOCL`, `GPS`. */
export function textToReferenceId(text: string): number {
  if (!/^[\x20-\x7e]{1,4}$/.test(text))
    throw new InvalidArgumentError(
      `a reference id as text is 1 to 4 printable ASCII characters, got ${JSON.stringify(text)}`,
    )
  let id = 0
  for (let i = 0; i < 4; i++) id = id * 256 + (text.charCodeAt(i) || 0)
  return id
}

/**
 * The reference id as people read it: text at stratum 0 and 1 (when printable), else a dotted
 * quad (an IPv4 address, or the first bytes of the hash of an IPv6 one).
 */
export function describeReferenceId(stratum: number, referenceId: number): string {
  const text = stratum <= 1 ? referenceIdToText(referenceId) : undefined
  if (text !== undefined) return text
  return [24, 16, 8, 0].map((shift) => (referenceId >>> shift) & 0xff).join('.')
}

function readTimestamp(view: DataView, offset: number): NtpTimestamp {
  return { seconds: view.getUint32(offset), fraction: view.getUint32(offset + 4) }
}

function writeTimestamp(view: DataView, offset: number, name: string, t: NtpTimestamp): void {
  checkInteger(`${name}.seconds`, t.seconds, 0, 0xffff_ffff)
  checkInteger(`${name}.fraction`, t.fraction, 0, 0xffff_ffff)
  view.setUint32(offset, t.seconds)
  view.setUint32(offset + 4, t.fraction)
}

function checkInteger(name: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new InvalidArgumentError(
      `NTP packet field ${name} must be an integer in ${min}..${max}, got ${value}`,
    )
}

function checkSeconds(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0)
    throw new InvalidArgumentError(
      `NTP packet field ${name} must be a finite number of seconds >= 0, got ${value}`,
    )
  return value
}
