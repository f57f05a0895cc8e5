import { createHmac, timingSafeEqual } from 'node:crypto'
import { InvalidArgumentError } from '../errors.js'
import { BLAKE2S_MAX_KEY_BYTES, Blake2sMac, blake2s } from './blake2s.js'
import { HmacSha256 } from './hmac-sha256.js'
import { MAC_BYTES } from './wire/header.js'

/**
 * A 32-byte MAC over every byte of a datagram before its trailer: keyed BLAKE2s-256 (the
 * default) or HMAC-SHA256. One shared key for the whole group: it proves "a member sent this",
 * not which member (the sender id is inside the signed bytes, so a member can impersonate another;
 * see the transport README, "Authentication: guarantees and limits"). Every member must use the
 * same `mac`: the datagram does not say which.
 */
export type MacAlgorithm = 'blake2s' | 'hmac-sha256'
export type HmacEngine = 'js' | 'node-crypto'

/** The part of a MAC the authenticator needs: MAC into a buffer, check in constant time. */
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
  private readonly mac: Mac

  /**
   * `engine` is HMAC-SHA256's (undefined: 'js'). `algorithm` undefined: 'blake2s', or 'hmac-sha256'
   * when an `engine` is given (an HMAC engine asks for HMAC, as before `mac` existed).
   */
  constructor(
    key: string | Uint8Array,
    engine: HmacEngine | undefined = undefined,
    algorithm: MacAlgorithm | undefined = undefined,
  ) {
    const algorithmUsed = algorithm ?? (engine === undefined ? 'blake2s' : 'hmac-sha256')
    const bytes = typeof key === 'string' ? Buffer.from(key, 'utf8') : Buffer.from(key)
    if (bytes.length < 16) {
      throw new InvalidArgumentError(
        `authentication key is ${bytes.length} bytes; use at least 16 (32 random bytes recommended: crypto.randomBytes(32))`,
      )
    }
    checkMacOptions({ mac: algorithmUsed, hmacEngine: engine })
    if (algorithmUsed === 'blake2s') {
      if (engine !== undefined) {
        throw new InvalidArgumentError(
          `hmacEngine ${JSON.stringify(engine)} applies to mac 'hmac-sha256', not 'blake2s'`,
        )
      }
      // Keyed BLAKE2s takes up to 32 bytes of key: a longer secret is hashed down to 32 first
      // (as HMAC hashes a key longer than its block), the same on every member.
      this.mac = new Blake2sMac(bytes.length <= BLAKE2S_MAX_KEY_BYTES ? bytes : blake2s(bytes))
    } else {
      this.mac = engine === 'node-crypto' ? new NodeCryptoHmac(bytes) : new HmacSha256(bytes)
    }
  }

  /** Fills the trailer of a datagram built with room for it. */
  sign(datagram: Uint8Array): void {
    const end = datagram.length - MAC_BYTES
    this.mac.mac(datagram, 0, end, datagram, end)
  }

  /** Constant-time check of the MAC that follows the first `signedLength` bytes. */
  verify(datagram: Uint8Array, signedLength: number): boolean {
    if (datagram.length !== signedLength + MAC_BYTES) return false
    return this.mac.verify(datagram, 0, signedLength, datagram, signedLength)
  }
}

/** Without a key nothing is signed, but a misspelt `mac` or `hmacEngine` is still refused. */
export function checkMacOptions(options: { mac?: unknown; hmacEngine?: unknown }): void {
  if (options.mac !== undefined && options.mac !== 'blake2s' && options.mac !== 'hmac-sha256') {
    throw new InvalidArgumentError(
      `mac must be 'blake2s' or 'hmac-sha256', got ${JSON.stringify(options.mac)}`,
    )
  }
  const engine = options.hmacEngine
  if (engine !== undefined && engine !== 'js' && engine !== 'node-crypto') {
    throw new InvalidArgumentError(
      `hmacEngine must be 'js' or 'node-crypto', got ${JSON.stringify(engine)}`,
    )
  }
}
