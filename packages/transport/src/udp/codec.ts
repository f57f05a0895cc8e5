import { CodecError } from '../errors.js'

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

/** The default codec: JSON text in UTF-8. Values JSON cannot represent (undefined, functions, BigInt, cycles) are refused. */
export const jsonCodec: Codec<unknown> = {
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
    return Buffer.from(text, 'utf8')
  },
  decode(bytes) {
    // Invalid UTF-8 becomes U+FFFD (inside a string) or a JSON syntax error: either way no crash.
    const buf = Buffer.isBuffer(bytes)
      ? bytes
      : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)
    return JSON.parse(buf.toString('utf8'))
  },
}
