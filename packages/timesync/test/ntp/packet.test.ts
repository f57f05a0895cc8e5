import { describe, expect, it } from 'vitest'
import { NtpRejectedError } from '../../src/ntp/errors.js'
import {
  decodePacket,
  describeReferenceId,
  encodePacket,
  type NtpPacket,
  referenceIdToText,
  textToReferenceId,
} from '../../src/ntp/packet.js'

/** A server reply written byte by byte from RFC 5905's figure 8. */
const REPLY_BYTES = Uint8Array.from([
  0x24, // leap 0, version 4, mode 4 (server): 00 100 100
  0x02, // stratum 2
  0x06, // poll 2^6 s
  0xec, // precision 2^-20 s (int8 -20)
  0x00,
  0x00,
  0x80,
  0x00, // root delay 0.5 s
  0x00,
  0x00,
  0x40,
  0x00, // root dispersion 0.25 s
  0xc0,
  0x00,
  0x02,
  0x01, // reference id 192.0.2.1
  0xeb,
  0x1f,
  0x04,
  0x00,
  0x80,
  0x00,
  0x00,
  0x00, // reference: 2025-01-01T00:00:00.5Z
  0x12,
  0x34,
  0x56,
  0x78,
  0x9a,
  0xbc,
  0xde,
  0xf0, // origin: the client's raw transmit
  0xeb,
  0x1f,
  0x04,
  0x01,
  0x40,
  0x00,
  0x00,
  0x00, // receive: 01.25 s
  0xeb,
  0x1f,
  0x04,
  0x01,
  0x40,
  0x00,
  0x00,
  0x01, // transmit: 2^-32 s later
])

const REPLY: NtpPacket = {
  leap: 0,
  version: 4,
  mode: 4,
  stratum: 2,
  poll: 6,
  precision: -20,
  rootDelay: 0.5,
  rootDispersion: 0.25,
  referenceId: 0xc000_0201,
  referenceTimestamp: { seconds: 0xeb1f_0400, fraction: 0x8000_0000 },
  originTimestamp: { seconds: 0x1234_5678, fraction: 0x9abc_def0 },
  receiveTimestamp: { seconds: 0xeb1f_0401, fraction: 0x4000_0000 },
  transmitTimestamp: { seconds: 0xeb1f_0401, fraction: 0x4000_0001 },
}

describe('NTP packets', () => {
  it('decodes a hand-written reply', () => {
    expect(decodePacket(REPLY_BYTES)).toEqual(REPLY)
  })

  it('encodes it to the same 48 bytes', () => {
    expect(encodePacket(REPLY)).toEqual(REPLY_BYTES)
  })

  it('reads the first byte bit by bit: leap 3, version 3, mode 3', () => {
    const bytes = REPLY_BYTES.slice()
    bytes[0] = 0b11_011_011
    const p = decodePacket(bytes)
    expect([p.leap, p.version, p.mode]).toEqual([3, 3, 3])
    bytes[2] = 0x80 // poll -128
    bytes[3] = 0x7f // precision 127
    expect(decodePacket(bytes)).toMatchObject({ poll: -128, precision: 127 })
  })

  it('ignores what follows the header (extension fields, MAC)', () => {
    const long = new Uint8Array(48 + 20)
    long.set(REPLY_BYTES)
    long.fill(0xff, 48)
    expect(decodePacket(long)).toEqual(REPLY)
  })

  it('reads a view that does not start at offset 0 of its buffer (a pooled Buffer)', () => {
    const pool = new Uint8Array(200)
    pool.set(REPLY_BYTES, 77)
    expect(decodePacket(pool.subarray(77, 77 + 48))).toEqual(REPLY)
    expect(decodePacket(Buffer.from(REPLY_BYTES))).toEqual(REPLY)
  })

  it('refuses fewer than 48 bytes with the reason short', () => {
    for (const n of [0, 1, 47]) {
      const error = catchError(() => decodePacket(REPLY_BYTES.slice(0, n)))
      expect(error).toBeInstanceOf(NtpRejectedError)
      expect(error).toMatchObject({ reason: 'short', code: 'ERR_NTP_REJECTED' })
    }
  })

  it('refuses to encode a field out of its range', () => {
    const bad: Array<Partial<NtpPacket>> = [
      { leap: 4 as never },
      { version: 8 },
      { mode: -1 as never },
      { stratum: 256 },
      { poll: 128 },
      { precision: -129 },
      { referenceId: 2 ** 32 },
      { rootDelay: -1 },
      { rootDispersion: Number.NaN },
      { transmitTimestamp: { seconds: 2 ** 32, fraction: 0 } },
      { originTimestamp: { seconds: 0, fraction: 0.5 } },
    ]
    for (const change of bad)
      expect(() => encodePacket({ ...REPLY, ...change }), JSON.stringify(change)).toThrow(/must be/)
  })

  it('reference ids: kiss codes and clock names as text, others as dotted quads', () => {
    expect(referenceIdToText(textToReferenceId('RATE'))).toBe('RATE')
    expect(textToReferenceId('GPS')).toBe(0x4750_5300)
    expect(referenceIdToText(0x4750_5300)).toBe('GPS')
    expect(referenceIdToText(0x7f00_0001)).toBeUndefined()
    expect(referenceIdToText(0)).toBeUndefined()
    expect(referenceIdToText(0x4100_4100)).toBeUndefined() // a NUL inside is no text
    expect(describeReferenceId(1, textToReferenceId('LOCL'))).toBe('LOCL')
    expect(describeReferenceId(2, 0xc000_0201)).toBe('192.0.2.1')
    expect(describeReferenceId(0, 0x0102_0304)).toBe('1.2.3.4')
    expect(() => textToReferenceId('TOOLONG')).toThrow(/1 to 4/)
    expect(() => textToReferenceId('é')).toThrow(/ASCII/)
  })
})

function catchError(f: () => unknown): unknown {
  try {
    f()
  } catch (error) {
    return error
  }
  throw new Error('expected an error')
}
