import { InvalidArgumentError } from '../errors.js'
import { HmacSha256 } from './hmac-sha256.js'
import { MAC_BYTES } from './wire/header.js'

/**
 * HMAC-SHA256 over every byte of a datagram before its 32-byte trailer.
 * One shared key for the whole group: it proves "a member sent this", not which member
 * (the sender id is inside the signed bytes, so a member can impersonate another; see docs/udp.md).
 */
export class Authenticator {
  private readonly hmac: HmacSha256

  constructor(key: string | Uint8Array) {
    const bytes = typeof key === 'string' ? Buffer.from(key, 'utf8') : Buffer.from(key)
    if (bytes.length < 16) {
      throw new InvalidArgumentError(
        `authentication key is ${bytes.length} bytes; use at least 16 (32 random bytes recommended: crypto.randomBytes(32))`,
      )
    }
    this.hmac = new HmacSha256(bytes)
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
