import { getU16, getU48, putU16, putU48 } from './bytes.js'

/**
 * An acknowledgement of packet numbers, as ranges (the idea of QUIC's ACK frame): the largest
 * packet number received, then runs of received and missing numbers going down.
 *
 *   largest u48 | first u16 (numbers received just below largest) | count u8 |
 *   count x (gap u16 (missing numbers - 1), length u16 (received numbers - 1))
 *
 * Packet numbers are never reused, so an acknowledgement says which transmission arrived:
 * round-trip samples are unambiguous and nothing is retransmitted only because a bitmap was short.
 */

/** Ranges beyond this many are left out (older packets were acknowledged by earlier blocks). */
export const MAX_ACK_RANGES = 16
const U16 = 0xffff
const HEAD_BYTES = 9
const RANGE_BYTES = 4
export const MAX_ACK_BLOCK_BYTES = HEAD_BYTES + MAX_ACK_RANGES * RANGE_BYTES

/**
 * Received packet numbers as inclusive ranges, highest first: [hi0, lo0, hi1, lo1, ...],
 * with hi(k+1) < lo(k) - 1 (a gap of at least one number between ranges).
 */
export type AckRanges = number[]

/**
 * The prefix of `ranges` that the block can carry: at most MAX_ACK_RANGES ranges after the first,
 * and runs that fit 16 bits (a longer first run is shortened; older numbers were acknowledged before).
 */
export function encodableAckRanges(ranges: AckRanges): AckRanges {
  // The common case (one run, short enough) needs no copy: the writer reads it at once.
  if (ranges.length === 2 && ranges[0]! - ranges[1]! <= U16) return ranges
  const largest = ranges[0]!
  if (largest - ranges[1]! > U16) return [largest, largest - U16]
  const out: AckRanges = [largest, ranges[1]!]
  const room = Math.min(MAX_ACK_RANGES, ranges.length / 2 - 1)
  for (let k = 1; k <= room; k++) {
    const hi = ranges[2 * k]!
    const lo = ranges[2 * k + 1]!
    if (out[out.length - 1]! - hi - 2 > U16 || hi - lo > U16) break
    out.push(hi, lo)
  }
  return out
}

/** Bytes of the block for ranges returned by `encodableAckRanges`. */
export function ackBlockBytes(ranges: AckRanges): number {
  return HEAD_BYTES + RANGE_BYTES * (ranges.length / 2 - 1)
}

/** Writes ranges returned by `encodableAckRanges` at `at`; returns the offset after the block. */
export function writeAckBlock(buf: Buffer, at: number, ranges: AckRanges): number {
  const largest = ranges[0]!
  putU48(buf, at, largest)
  putU16(buf, at + 6, largest - ranges[1]!)
  const count = ranges.length / 2 - 1
  buf[at + 8] = count
  let cursor = at + HEAD_BYTES
  for (let k = 1; k <= count; k++) {
    putU16(buf, cursor, ranges[2 * k - 1]! - ranges[2 * k]! - 2)
    putU16(buf, cursor + 2, ranges[2 * k]! - ranges[2 * k + 1]!)
    cursor += RANGE_BYTES
  }
  return cursor
}

/**
 * Reads a block; returns its ranges (the block ends `ackBlockBytes(ranges)` bytes after `at`),
 * or 'truncated' / 'malformed'.
 */
export function readAckBlock(
  buf: Buffer,
  at: number,
  end: number,
): AckRanges | 'truncated' | 'malformed' {
  if (at + HEAD_BYTES > end) return 'truncated'
  const largest = getU48(buf, at)
  const first = getU16(buf, at + 6)
  const count = buf[at + 8]!
  if (count > MAX_ACK_RANGES) return 'malformed'
  if (at + HEAD_BYTES + count * RANGE_BYTES > end) return 'truncated'
  if (first > largest) return 'malformed'
  const ranges: AckRanges = [largest, largest - first]
  let low = largest - first
  let cursor = at + HEAD_BYTES
  for (let k = 0; k < count; k++) {
    const hi = low - getU16(buf, cursor) - 2
    const lo = hi - getU16(buf, cursor + 2)
    if (lo < 0) return 'malformed'
    ranges.push(hi, lo)
    low = lo
    cursor += RANGE_BYTES
  }
  return ranges
}
