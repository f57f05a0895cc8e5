/**
 * Datagrams for fuzzing an NTP server: every mode (0..7, in turn), lengths 0..1024 with 48 (the
 * header) and 68 (header + a 20-byte MAC) often, headers valid and invalid (any leap and
 * version, zero and random timestamps, random bytes after the first one).
 */
import type { Random } from '@sd/transport'
import { createNtpRequest } from '../../../src/ntp/client.js'
import { NtpRejectedError } from '../../../src/ntp/errors.js'
import { validateRequest } from '../../../src/ntp/server.js'

const LENGTHS = [0, 1, 12, 47, 48, 48, 48, 49, 68, 68, 68, 100, 480, 1024]

/** The i-th datagram of a run: its mode is i mod 8 whenever it is long enough to have one. */
export function hostileDatagram(random: Random, i: number): Uint8Array {
  const length =
    random.next() < 0.8 ? LENGTHS[random.int(0, LENGTHS.length - 1)]! : random.int(0, 1024)
  const bytes = Uint8Array.from({ length }, () => random.int(0, 255))
  if (length === 0) return bytes
  const roll = random.next()
  if (roll < 0.4 && length >= 48) {
    // A well-formed request (client mode, random transmit) under the header byte chosen below.
    bytes.set(createNtpRequest(Date.UTC(2026, 0, 1) + i, { random: random.next }).bytes)
    if (random.next() < 0.1) bytes.fill(0, 40, 48) // a zero transmit timestamp
  }
  const leap = random.int(0, 3)
  const version = random.next() < 0.7 ? random.int(3, 4) : random.int(0, 7)
  if (roll < 0.9) bytes[0] = (leap << 6) | (version << 3) | (i % 8)
  return bytes
}

/** Whether our server answers `bytes` (else it refuses it with a reason). */
export function answerable(bytes: Uint8Array): boolean {
  try {
    validateRequest(bytes)
    return true
  } catch (error) {
    if (error instanceof NtpRejectedError) return false
    throw error
  }
}
