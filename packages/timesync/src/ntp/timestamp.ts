/**
 * NTP timestamps (RFC 5905, section 6): 64-bit, 32.32 fixed point, seconds since 1900-01-01 UTC
 * in era 0. The 32-bit seconds field wraps every 2^32 s (next on 2036-02-07), so a raw timestamp
 * names a time only up to a multiple of 2^32 s: turning it back into a date takes a pivot.
 */
import { InvalidArgumentError } from '@sd/transport'

/**
 * A raw NTP timestamp: two uint32s, kept as they were on the wire so that a server can echo the
 * client's transmit timestamp bit for bit (clients such as chrony put a random value there).
 */
export interface NtpTimestamp {
  /** Seconds since 1900-01-01 modulo 2^32 (the era is not on the wire). */
  readonly seconds: number
  /** Fraction of a second, in units of 2^-32 s. */
  readonly fraction: number
}

/** Seconds from the NTP epoch (1900-01-01) to the Unix epoch (1970-01-01). */
export const NTP_UNIX_OFFSET_S = 2_208_988_800

/** One NTP era: the span of the 32-bit seconds field, 2^32 s (about 136 years). */
export const NTP_ERA_S = 2 ** 32

const TWO_32 = 2 ** 32
const ERA_MS = NTP_ERA_S * 1000

/** The all-zero timestamp, which NTP uses for "unknown" (e.g. a client's empty origin). */
export const ZERO_TIMESTAMP: NtpTimestamp = Object.freeze({ seconds: 0, fraction: 0 })

/**
 * The NTP timestamp of a Unix time in milliseconds (fractions of a millisecond kept to the
 * nearest 2^-32 s). Times outside era 0 wrap into the 32-bit seconds field, as on the wire.
 */
export function unixMsToNtp(unixMs: number): NtpTimestamp {
  if (!Number.isFinite(unixMs))
    throw new InvalidArgumentError(`a Unix time must be a finite number of ms, got ${unixMs}`)
  let whole = Math.floor(unixMs / 1000)
  let fraction = Math.round(((unixMs - whole * 1000) / 1000) * TWO_32)
  // Rounding can reach a whole second (a remainder just under 1000 ms).
  if (fraction >= TWO_32) {
    fraction -= TWO_32
    whole += 1
  }
  return { seconds: mod32(whole + NTP_UNIX_OFFSET_S), fraction }
}

/**
 * The Unix time in milliseconds of a raw timestamp, in the era that puts it nearest `pivotMs`
 * (a Unix time in ms, usually the local clock): right for any time within 68 years of the pivot,
 * including after the 2036 rollover.
 */
export function ntpToUnixMs(timestamp: NtpTimestamp, pivotMs: number): number {
  if (!Number.isFinite(pivotMs))
    throw new InvalidArgumentError(`the pivot must be a finite Unix time in ms, got ${pivotMs}`)
  const inEra0 = (timestamp.seconds - NTP_UNIX_OFFSET_S) * 1000 + fractionToMs(timestamp.fraction)
  const era = Math.round((pivotMs - inEra0) / ERA_MS)
  return inEra0 + era * ERA_MS
}

/**
 * `a - b` in milliseconds, computed modulo 2^32 s as RFC 5905 prescribes: right whatever the era
 * of either timestamp, as long as they are less than 68 years apart.
 */
export function ntpDifferenceMs(a: NtpTimestamp, b: NtpTimestamp): number {
  const seconds = (a.seconds - b.seconds) | 0
  return seconds * 1000 + fractionToMs(a.fraction) - fractionToMs(b.fraction)
}

/** Whether two raw timestamps are the same 64 bits. */
export function ntpTimestampEquals(a: NtpTimestamp, b: NtpTimestamp): boolean {
  return a.seconds === b.seconds && a.fraction === b.fraction
}

/** Whether a timestamp is all zeros (NTP's "unknown"). */
export function isZeroTimestamp(t: NtpTimestamp): boolean {
  return t.seconds === 0 && t.fraction === 0
}

/** The seconds of a 16.16 NTP short (root delay, root dispersion), from its raw uint32. */
export function shortToSeconds(raw: number): number {
  return raw / 65_536
}

/**
 * The raw uint32 of a 16.16 NTP short for `seconds`, rounded to the nearest 2^-16 s and clamped
 * to what the format holds (0 to 65536 - 2^-16 s).
 */
export function secondsToShort(seconds: number): number {
  if (Number.isNaN(seconds))
    throw new InvalidArgumentError('an NTP short (16.16) cannot hold NaN seconds')
  return Math.min(0xffff_ffff, Math.max(0, Math.round(seconds * 65_536)))
}

/** 2^exponent seconds in milliseconds: the meaning of the poll and precision fields. */
export function log2SecondsToMs(exponent: number): number {
  return 2 ** exponent * 1000
}

function fractionToMs(fraction: number): number {
  return (fraction / TWO_32) * 1000
}

function mod32(n: number): number {
  return ((n % TWO_32) + TWO_32) % TWO_32
}
