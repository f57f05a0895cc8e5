import { createHmac, timingSafeEqual } from 'node:crypto'
import { InvalidArgumentError } from '../errors.js'
import { HmacSha256 } from './hmac-sha256.js'
import { MAC_BYTES } from './wire/header.js'

/**
 * HMAC-SHA256 over every byte of a datagram before its 32-byte trailer.
 * One shared key for the whole group: it proves "a member sent this", not which member
 * (the sender id is inside the signed bytes, so a member can impersonate another; see docs/udp.md).
 */
export type HmacEngine = 'js' | 'node-crypto'

/** The part of HMAC-SHA256 the authenticator needs: MAC into a buffer, check in constant time. */
interface Mac {
  mac(data: Uint8Array, start: number, end: number, out: Uint8Array, at: number): void
  verify(data: Uint8Array, start: number, end: number, mac: Uint8Array, macAt: number): boolean
}

/** node:crypto's HMAC behind the same two calls. */
class NodeCryptoHmac implements Mac {
  constructor(private readonly key: Buffer) {}

  mac(data: Uint8Array, start: number, end: number, out: Uint8Array, at: number): void {
    out.set(createHmac('sha256', this.key).update(data.subarray(start, end)).digest(), at)
  }

  verify(data: Uint8Array, start: number, end: number, mac: Uint8Array, macAt: number): boolean {
    const expected = createHmac('sha256', this.key).update(data.subarray(start, end)).digest()
    return timingSafeEqual(expected, mac.subarray(macAt, macAt + expected.length))
  }
}

export class Authenticator {
  private readonly hmac: Mac

  constructor(key: string | Uint8Array, engine: HmacEngine = 'js') {
    const bytes = typeof key === 'string' ? Buffer.from(key, 'utf8') : Buffer.from(key)
    if (bytes.length < 16) {
      throw new InvalidArgumentError(
        `authentication key is ${bytes.length} bytes; use at least 16 (32 random bytes recommended: crypto.randomBytes(32))`,
      )
    }
    if (engine !== 'js' && engine !== 'node-crypto') {
      throw new InvalidArgumentError(
        `hmacEngine must be 'js' or 'node-crypto', got ${JSON.stringify(engine)}`,
      )
    }
    this.hmac = engine === 'js' ? new HmacSha256(bytes) : new NodeCryptoHmac(bytes)
  }

  /** Fills the trailer of a datagram built with room for it. */
  sign(datagram: Uint8Array): void {
    const end = datagram.length - MAC_BYTES
    this.hmac.mac(datagram, 0, end, datagram, end)
  }

  /** Constant-time check of the MAC that follows the first `signedLength` bytes. */
  verify(datagram: Uint8Array, signedLength: number): boolean {
    if (datagram.length !== signedLength + MAC_BYTES) return false
    return this.hmac.verify(datagram, 0, signedLength, datagram, signedLength)
  }
}
