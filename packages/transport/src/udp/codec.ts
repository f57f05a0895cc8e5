import { CodecError, InvalidArgumentError } from '../errors.js'

/**
 * Turns application messages into bytes and back. Plug another one (MessagePack, protobuf, CBOR...)
 * by passing `codec` to `createUdpTransport`; every node of a group must use the same codec.
 * `encode` may throw (the error reaches the caller of `send`); `decode` may throw on bytes it cannot
 * read (the datagram is dropped and counted as `undecodable`, the application never sees it).
 */
export interface Codec<Msg = unknown> {
  /** Short name, for error messages and diagnostics. */
  readonly name: string
  encode(msg: Msg): Uint8Array
  decode(bytes: Uint8Array): Msg
}

export interface JsonCodecOptions {
  /**
   * Deepest nesting of arrays and objects accepted when decoding. Default 64. Deeper input is
   * refused before it is parsed (dropped and counted as `undecodable`), so a handler that
   * recurses over a message cannot be driven into a stack overflow by a peer.
   */
  maxDepth?: number
}

const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d
const QUOTE = 0x22
const BACKSLASH = 0x5c

/** The deepest nesting in JSON text, counted on the bytes (strings skipped), stopping past `limit`. */
export function jsonDepth(bytes: Uint8Array, limit: number): number {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!
    if (inString) {
      if (b === BACKSLASH) i++
      else if (b === QUOTE) inString = false
    } else if (b === QUOTE) {
      inString = true
    } else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
      depth++
      if (depth > deepest) {
        deepest = depth
        if (deepest > limit) return deepest
      }
    } else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
      depth--
    }
  }
  return deepest
}

/** A JSON codec (UTF-8 text) with its own nesting limit. */
export function createJsonCodec(options: JsonCodecOptions = {}): Codec<unknown> {
  const maxDepth = options.maxDepth ?? 64
  if (!Number.isInteger(maxDepth) || maxDepth < 1 || maxDepth > 10_000) {
    throw new InvalidArgumentError(`maxDepth must be an integer in 1..10000, got ${maxDepth}`)
  }
  return {
    name: 'json',
    encode(msg) {
      let text: string | undefined
      try {
        text = JSON.stringify(msg)
      } catch (cause) {
        throw new CodecError(`json codec cannot encode this message: ${String(cause)}`, cause)
      }
      if (text === undefined) {
        throw new CodecError(
          `json codec cannot encode a message of type ${typeof msg}: send a JSON value (object, array, string, number, boolean or null)`,
        )
      }
      const bytes = Buffer.from(text, 'utf8')
      // Refused here rather than by every receiver: a message its peers cannot read would also
      // make them drop the rest of its bundle (a bundle with an unreadable message is hostile).
      if (bytes.length > 2 * maxDepth && jsonDepth(bytes, maxDepth) > maxDepth) {
        throw new CodecError(
          `json codec cannot encode a message nested deeper than ${maxDepth} levels`,
        )
      }
      return bytes
    },
    decode(bytes) {
      // Each level takes two bytes at least ("[]"), so short input cannot nest too deep.
      if (bytes.length > 2 * maxDepth && jsonDepth(bytes, maxDepth) > maxDepth) {
        throw new CodecError(`json message nests deeper than ${maxDepth} levels`)
      }
      // Invalid UTF-8 becomes U+FFFD (inside a string) or a JSON syntax error: either way no crash.
      const buf = Buffer.isBuffer(bytes)
        ? bytes
        : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)
      return JSON.parse(buf.toString('utf8'))
    },
  }
}

/**
 * The default codec: JSON text in UTF-8, nesting at most 64 levels deep. Values JSON cannot
 * represent (undefined, functions, BigInt, cycles) are refused by `encode`.
 */
export const jsonCodec: Codec<unknown> = createJsonCodec()
