import { createHmac } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Authenticator } from './auth.js'
import { HmacSha256 } from './hmac-sha256.js'

describe('HMAC-SHA256 in JavaScript', () => {
  it('matches node:crypto for every length up to three blocks and keys of every size', () => {
    const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 0x7fffffff)
    const result = fc.check(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 150 }),
        fc.uint8Array({ maxLength: 400 }),
        fc.nat(7),
        (key, data, offset) => {
          const padded = new Uint8Array(offset + data.length)
          padded.set(data, offset)
          const out = new Uint8Array(32)
          new HmacSha256(key).mac(padded, offset, padded.length, out, 0)
          const expected = createHmac('sha256', key).update(data).digest()
          return Buffer.from(out).equals(expected)
        },
      ),
      { seed, numRuns: 3000 },
    )
    if (result.failed)
      throw new Error(
        `HMAC mismatch; replay with FUZZ_SEED=${seed}\n${fc.defaultReportMessage(result)}`,
      )
  })

  it('RFC 4231 test case 2', () => {
    const out = new Uint8Array(32)
    const data = Buffer.from('what do ya want for nothing?')
    new HmacSha256(Buffer.from('Jefe')).mac(data, 0, data.length, out, 0)
    expect(Buffer.from(out).toString('hex')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    )
  })

  it('signs a datagram trailer and verifies it; any flipped bit fails', () => {
    const auth = new Authenticator('a-shared-key-of-enough-length')
    const datagram = Buffer.alloc(100 + 32, 7)
    auth.sign(datagram)
    expect(auth.verify(datagram, 100)).toBe(true)
    for (let i = 0; i < datagram.length; i++) {
      datagram[i]! ^= 1
      expect(auth.verify(datagram, 100)).toBe(false)
      datagram[i]! ^= 1
    }
    expect(() => new Authenticator('short')).toThrow(/at least 16/)
  })

  it('the node:crypto engine signs exactly like the JS engine, and rejects flipped bits too', () => {
    const key = 'a-shared-key-of-enough-length'
    const js = new Authenticator(key, 'js')
    const native = new Authenticator(key, 'node-crypto')
    for (const size of [0, 1, 55, 56, 64, 100, 1168]) {
      const a = Buffer.alloc(size + 32, size % 251)
      const b = Buffer.from(a)
      js.sign(a)
      native.sign(b)
      expect(b.equals(a), `size ${size}`).toBe(true)
      expect(native.verify(a, size)).toBe(true)
      a[size >> 1]! ^= 0x80
      expect(native.verify(a, size)).toBe(false)
      expect(js.verify(a, size)).toBe(false)
    }
    expect(() => new Authenticator(key, 'md5' as never)).toThrow(/hmacEngine/)
  })
})
