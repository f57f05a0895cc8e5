import { createHash, createHmac, randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { Authenticator } from './auth.js'
import { Blake2sMac, blake2s } from './blake2s.js'

const message = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 7 + 3) & 255)
const keyOf = (n: number) => Uint8Array.from({ length: n }, (_, i) => i)
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')

/**
 * Keyed BLAKE2s-256 of `message(n)` under the key 00 01 02 .. (its length first), computed by
 * Python's hashlib (`hashlib.blake2s(msg, key=key)`), an implementation independent of this one.
 * Length 40: a key longer than 32 bytes, reduced as auth.ts reduces it (`key=blake2s(key40)`).
 */
const KEYED: Array<[number, number, string]> = [
  [16, 1, 'f832f787078faf3d18b2f521e09bd621712f0441e79fce83e64fec22d2fef9d7'],
  [16, 55, '23552204ea5070def53cc9dd13a9a3d5d0ec0b33097389eaafa93c01928d2d36'],
  [16, 63, '24f5e04555db926b7fae34990b0570a452d969af57ad6c814e0d75959a84e5c7'],
  [16, 64, 'd24c86b41ec58465fa6f769853f97f34a49d3179e91ae7df76c81417e7a5d827'],
  [16, 65, '8a0f69ca63bfe8ee2a82b5f8ab26472ecb6f84907d47c6c92bafc6b2fa9e78c7'],
  [16, 78, 'f2b9c21ea7ad9ba7b1cfbfa555bdaf949214f18824776128d5a42212179cf817'],
  [16, 128, 'ba5dcf9f66718e7246cafd724bac412de81c2c4b4f233dc1b0bc799102f4340e'],
  [16, 129, '7afcc53db76a19191ef100154857f23f77bfe117629e288adfb315ad1d722e59'],
  [16, 1168, '287b5ae0c01a1ba99b572b689b94d743fd5a754c81bd14fd18eb390f72b6edf1'],
  [32, 1, '722ac21d94c3868234e075bb5692678e6460c23466b10b48acf133e6f89f9082'],
  [32, 55, '19a187efc049d2daae0e05e11e0db100de76145488dfbd2034622b75b0bb7c33'],
  [32, 63, '1b40734002093e70c462a8d12967377efd57653c412650984b7fe50c79251b24'],
  [32, 64, 'ce3c22b930e6395797de1e490600d305294ff2e30eb187bb63120e3f5e3fc129'],
  [32, 65, '82e02e62a066f2f3cd7a8a542581cbf441e35cf7a771fc7adb0965d8446b71cb'],
  [32, 78, '59f699b708587e4f6873d2897f0524217ab34e732a25a45d5b37ba0f4d0e3219'],
  [32, 128, 'b434a9ad31b133b873924a29f24cfd8e00431b1c2aa088176e7ef5b311aed79b'],
  [32, 129, 'fac34ebd5385a5dc8310e5dbe4aa071b32ab769164c222f782848a8b08584420'],
  [32, 1168, '531bc5d23756286481042793af99a732c8dc169e4b510576e1d38000ec3d41ab'],
  [40, 1, 'b5ca9f6dd240f1fb1270ce792fe019302429aef4a6012210244d6c8772dc94d7'],
  [40, 78, 'a4c3266be02d4df97e27ba3be0df7794cd1fc0404b2b31594f401692116d19cf'],
]

describe('BLAKE2s-256', () => {
  it('plain: the RFC 7693 example, and node:crypto (OpenSSL) at every length up to 300', () => {
    expect(hex(blake2s(new TextEncoder().encode('abc')))).toBe(
      '508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c86675982',
    )
    for (let n = 0; n <= 300; n++) {
      const data = randomBytes(n)
      expect(hex(blake2s(data)), `length ${n}`).toBe(
        createHash('blake2s256').update(data).digest('hex'),
      )
    }
  })

  it('keyed: the vectors of an independent implementation, data at any offset', () => {
    for (const [keyBytes, n, expected] of KEYED) {
      const key = keyBytes <= 32 ? keyOf(keyBytes) : blake2s(keyOf(keyBytes))
      const out = new Uint8Array(32 + 5)
      // The data in the middle of a larger buffer, the MAC written at an offset.
      const framed = new Uint8Array(n + 10)
      framed.set(message(n), 7)
      new Blake2sMac(key).mac(framed, 7, 7 + n, out, 5)
      expect(hex(out.subarray(5)), `key ${keyBytes}, length ${n}`).toBe(expected)
    }
  })

  it('verify accepts its MAC and refuses any flipped bit, of the data or of the MAC', () => {
    const mac = new Blake2sMac(keyOf(32))
    const data = message(100)
    const tag = new Uint8Array(32)
    mac.mac(data, 0, 100, tag, 0)
    expect(mac.verify(data, 0, 100, tag, 0)).toBe(true)
    for (const bytes of [data, tag]) {
      for (let i = 0; i < bytes.length; i++) {
        for (const bit of [0x01, 0x80]) {
          bytes[i]! ^= bit
          expect(mac.verify(data, 0, 100, tag, 0)).toBe(false)
          bytes[i]! ^= bit
        }
      }
    }
    expect(mac.verify(data, 0, 100, tag, 1)).toBe(false) // a MAC cut short
  })

  it('refuses keys it cannot take and empty data', () => {
    expect(() => new Blake2sMac(new Uint8Array(0))).toThrow(RangeError)
    expect(() => new Blake2sMac(new Uint8Array(33))).toThrow(RangeError)
    expect(() => new Blake2sMac(keyOf(16)).mac(message(4), 2, 2, new Uint8Array(32), 0)).toThrow(
      RangeError,
    )
  })
})

describe('Authenticator: which MAC', () => {
  const key = 'a-shared-key-of-enough-length'
  const datagram = (size: number) => Buffer.alloc(size + 32, size % 251)

  it('signs with keyed BLAKE2s by default, a long key hashed to 32 bytes first', () => {
    for (const secret of [key, 'k'.repeat(48)]) {
      const bytes = Buffer.from(secret)
      const expectedKey = bytes.length <= 32 ? bytes : blake2s(bytes)
      const d = datagram(78)
      new Authenticator(secret).sign(d)
      const expected = new Uint8Array(32)
      new Blake2sMac(expectedKey).mac(d, 0, 78, expected, 0)
      expect(hex(d.subarray(78))).toBe(hex(expected))
    }
  })

  it("'hmac-sha256' signs as node:crypto's HMAC, and an HMAC engine alone selects it", () => {
    for (const auth of [
      new Authenticator(key, undefined, 'hmac-sha256'),
      new Authenticator(key, 'js'),
      new Authenticator(key, 'node-crypto'),
    ]) {
      const d = datagram(78)
      auth.sign(d)
      const expected = createHmac('sha256', key).update(d.subarray(0, 78)).digest()
      expect(hex(d.subarray(78))).toBe(hex(expected))
    }
  })

  it('a MAC of one kind does not verify under the other', () => {
    const blake = new Authenticator(key)
    const hmac = new Authenticator(key, undefined, 'hmac-sha256')
    const d = datagram(78)
    blake.sign(d)
    expect(blake.verify(d, 78)).toBe(true)
    expect(hmac.verify(d, 78)).toBe(false)
    hmac.sign(d)
    expect(blake.verify(d, 78)).toBe(false)
  })

  it('refuses an unknown mac, and an HMAC engine with BLAKE2s', () => {
    expect(() => new Authenticator(key, undefined, 'md5' as never)).toThrow(/mac must be/)
    expect(() => new Authenticator(key, 'node-crypto', 'blake2s')).toThrow(/applies to mac/)
  })
})
