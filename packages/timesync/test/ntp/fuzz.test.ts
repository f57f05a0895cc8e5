/**
 * The decoder and both validators on random bytes and on mutations of valid packets: they must
 * return, or throw NtpRejectedError with a known reason; never anything else. Bounded by counts.
 * Replay a failure with FUZZ_SEED=<seed> (printed); FUZZ_COUNT resizes the run.
 */
import { createRandom, type Random } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { createNtpRequest, sampleFromReply, validateReply } from '../../src/ntp/client.js'
import { NTP_REJECT_REASONS, NtpRejectedError } from '../../src/ntp/errors.js'
import { decodePacket, encodePacket, textToReferenceId } from '../../src/ntp/packet.js'
import { answerNtpRequest, validateRequest } from '../../src/ntp/server.js'
import { unixMsToNtp } from '../../src/ntp/timestamp.js'

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 0x7fff_ffff)
const COUNT = Number(process.env.FUZZ_COUNT ?? 20_000)
const T1 = Date.UTC(2026, 2, 3, 4, 5, 6)

/** Runs `body` and names the seed and the input when it fails. */
function withSeed(name: string, body: (random: Random) => void): void {
  try {
    body(createRandom(`${name}:${SEED}`))
  } catch (error) {
    console.error(`${name} failed; replay with FUZZ_SEED=${SEED}`)
    const why = error instanceof Error ? error.message : String(error)
    throw new Error(`${name} failed; replay with FUZZ_SEED=${SEED}: ${why}`, { cause: error })
  }
}

/** 'accepted', or the reason of the typed rejection; anything else thrown is a failure. */
function outcome(f: () => unknown, input: Uint8Array): string {
  try {
    f()
    return 'accepted'
  } catch (error) {
    if (error instanceof NtpRejectedError && NTP_REJECT_REASONS.includes(error.reason))
      return error.reason
    throw new Error(`untyped failure on ${Buffer.from(input).toString('hex')}: ${String(error)}`, {
      cause: error,
    })
  }
}

function randomBytes(random: Random, length: number): Uint8Array {
  return Uint8Array.from({ length }, () => random.int(0, 255))
}

/** Bit flips, then sometimes a header field set at random, a truncation or extra bytes. */
function mutate(random: Random, valid: Uint8Array): Uint8Array {
  let bytes = valid.slice()
  const flips = random.int(0, 8)
  for (let i = 0; i < flips; i++) {
    const bit = random.int(0, bytes.length * 8 - 1)
    bytes[bit >> 3]! ^= 1 << (bit & 7)
  }
  // Fields set whole: the checks that need several bits at once (leap 3, stratum 16) get reached.
  const roll = random.next()
  if (roll < 0.1) bytes[0] = (bytes[0]! & 0b0011_1111) | (random.int(0, 3) << 6)
  else if (roll < 0.2) bytes[0] = (bytes[0]! & 0b1100_0111) | (random.int(0, 7) << 3)
  else if (roll < 0.3) bytes[0] = (bytes[0]! & 0b1111_1000) | random.int(0, 7)
  else if (roll < 0.4) bytes[1] = [0, 1, 2, 15, 16, 17, 255][random.int(0, 6)]!
  else if (roll < 0.45) {
    // A zero receive or transmit timestamp.
    const at = random.next() < 0.5 ? 32 : 40
    bytes.fill(0, at, at + 8)
  } else if (roll < 0.5 && bytes.length >= 48) {
    // The seconds of the reference, receive or transmit timestamp, or a root field, set whole:
    // times decades off, a reference after the transmit, a root distance past 16 s; or the
    // receive and transmit seconds moved together (a server consistently years off).
    const view = new DataView(bytes.buffer)
    if (random.next() < 0.3) {
      const shift = random.int(-(2 ** 31), 2 ** 31)
      for (const at of [32, 40]) view.setUint32(at, (view.getUint32(at) + shift) >>> 0)
    } else view.setUint32([4, 8, 16, 32, 40][random.int(0, 4)]!, random.int(0, 0xffff_ffff))
  } else if (roll < 0.6) bytes = bytes.slice(0, random.int(0, bytes.length))
  else if (roll < 0.75) {
    const longer = new Uint8Array(bytes.length + random.int(1, 52))
    longer.set(bytes)
    longer.set(randomBytes(random, longer.length - bytes.length), bytes.length)
    bytes = longer
  }
  return bytes
}

describe('NTP fuzzing (seed printed on failure)', () => {
  it('random byte arrays of 0..100 bytes: only typed rejections, from every entry point', () => {
    withSeed('ntp-random-bytes', (random) => {
      const request = createNtpRequest(T1, { random: random.next })
      const seen = new Map<string, number>()
      for (let i = 0; i < COUNT; i++) {
        const bytes = randomBytes(random, random.int(0, 100))
        // Half of them get a plausible first byte and our origin, to reach the deeper checks.
        if (bytes.length >= 48 && random.next() < 0.5) {
          bytes[0] = random.next() < 0.5 ? 0x24 : 0x23
          bytes.set(request.bytes.subarray(40, 48), 24)
        }
        const key = outcome(() => validateReply(request, bytes), bytes)
        seen.set(key, (seen.get(key) ?? 0) + 1)
        outcome(() => decodePacket(bytes), bytes)
        outcome(() => validateRequest(bytes), bytes)
        outcome(() => answerNtpRequest(bytes, T1, T1 + 0.1), bytes)
        outcome(() => finiteSample(sampleFromReply(request, bytes, T1 + 1)), bytes)
      }
      expect(seen.get('short')).toBeGreaterThan(0)
      expect(seen.get('origin-mismatch')).toBeGreaterThan(0)
    })
  })

  it('mutations of a valid reply (bit flips, fields, truncation, extra bytes): every reason, no crash', () => {
    withSeed('ntp-reply-mutations', (random) => {
      const request = createNtpRequest(T1, { random: random.next })
      const valid = encodePacket({
        leap: 0,
        version: 4,
        mode: 4,
        stratum: 1,
        poll: 6,
        precision: -20,
        rootDelay: 0.001,
        rootDispersion: 0.002,
        referenceId: textToReferenceId('GPS'), // stratum 0 by a flip turns it into a kiss
        referenceTimestamp: unixMsToNtp(T1 - 1000),
        originTimestamp: request.transmit,
        receiveTimestamp: unixMsToNtp(T1 + 1),
        transmitTimestamp: unixMsToNtp(T1 + 2),
      })
      const seen = new Set<string>()
      for (let i = 0; i < COUNT; i++) {
        const bytes = mutate(random, valid)
        seen.add(outcome(() => finiteSample(sampleFromReply(request, bytes, T1 + 3)), bytes))
      }
      expect([...seen].sort()).toEqual(['accepted', ...NTP_REJECT_REASONS].sort())
    })
  })

  it('mutations of a valid request: answered or refused with a reason, no crash', () => {
    withSeed('ntp-request-mutations', (random) => {
      const valid = createNtpRequest(T1, { random: random.next }).bytes
      const seen = new Set<string>()
      for (let i = 0; i < COUNT; i++) {
        const bytes = mutate(random, valid)
        seen.add(
          outcome(() => {
            const reply = decodePacket(answerNtpRequest(bytes, T1, T1 + 0.1))
            // The origin is the request's transmit, bit for bit.
            expect(reply.originTimestamp).toEqual(decodePacket(bytes).transmitTimestamp)
          }, bytes),
        )
      }
      expect([...seen].sort()).toEqual(['accepted', 'mode', 'short', 'version', 'zero-transmit'])
    })
  })
})

function finiteSample(sample: object): void {
  for (const [key, value] of Object.entries(sample))
    if (typeof value === 'number' && !Number.isFinite(value))
      throw new Error(`sample field ${key} is ${value}`)
}
