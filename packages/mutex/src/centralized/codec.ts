/**
 * A wire codec for the centralized lock's hot messages: REQUEST, GRANT and RELEASE of an exclusive
 * entry (the three datagrams of an uncontended acquire + release) travel as a tag byte and fixed
 * binary fields; every other message goes through the fallback codec (JSON as a rule). Decoding
 * gives what the fallback would have given for the same message (`decode(encode(m))` equals
 * `JSON.parse(JSON.stringify(m))`, key order included): a message that is not exactly one of the
 * three shapes (another field, a number JSON cannot carry, a string UTF-8 cannot carry) takes the
 * fallback. No Node API: it runs in a browser as the lock does.
 */
import { CodecError } from '@sd/transport'
import type { CentralizedMessage } from './messages.js'

/** What `createUdpTransport`'s `codec` option takes (structurally, so this module needs no UDP). */
export interface WireCodec<Msg = unknown> {
  readonly name: string
  encode(msg: Msg): Uint8Array
  decode(bytes: Uint8Array): Msg
}

// JSON text never starts with a byte of 0x80 or above: the tags cannot be mistaken for it.
const REQUEST = 0x81
const GRANT = 0x82
const RELEASE = 0x83

const REQUEST_KEYS = ['type', 'term', 'resource', 'seq', 'at'] as const
const GRANT_KEYS = ['type', 'term', 'epoch', 'resource', 'seq', 'token', 'at'] as const
const RELEASE_KEYS = ['type', 'term', 'resource', 'token'] as const

/** A resource name travels with a 16-bit byte length. */
const MAX_NAME_BYTES = 0xffff

type Fields = Record<string, unknown>

/** Exactly these own enumerable keys, in this order (what JSON.stringify would write). */
function hasKeys(msg: Fields, keys: readonly string[]): boolean {
  const own = Object.keys(msg)
  if (own.length !== keys.length) return false
  for (let i = 0; i < keys.length; i++) if (own[i] !== keys[i]) return false
  return true
}

/** A number JSON carries as itself (JSON writes -0 as 0, so the binary form does too). */
const isWireNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)

/** A string UTF-8 carries exactly: no lone surrogate (JSON keeps one, UTF-8 would not). */
function isWireName(v: unknown): v is string {
  if (typeof v !== 'string' || v.length > MAX_NAME_BYTES) return false
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i)
    if (c < 0xd800 || c > 0xdfff) continue
    const next = v.charCodeAt(i + 1) // NaN past the end
    if (c > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) return false
    i++
  }
  return true
}

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** Writes the tag, then the name's length and bytes after `numbers` float64s. */
function pack(tag: number, name: string, numbers: readonly number[]): Uint8Array | undefined {
  const nameBytes = encoder.encode(name)
  if (nameBytes.length > MAX_NAME_BYTES) return undefined
  const bytes = new Uint8Array(1 + numbers.length * 8 + 2 + nameBytes.length)
  const view = new DataView(bytes.buffer)
  bytes[0] = tag
  let at = 1
  for (const n of numbers) {
    view.setFloat64(at, n + 0, true) // + 0: -0 becomes 0, as in JSON
    at += 8
  }
  view.setUint16(at, nameBytes.length, true)
  bytes.set(nameBytes, at + 2)
  return bytes
}

function encodeBinary(msg: unknown): Uint8Array | undefined {
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) return undefined
  const m = msg as Fields
  const { term, resource } = m
  if (!isWireNumber(term) || !isWireName(resource)) return undefined
  switch (m.type) {
    case 'request': {
      const { seq, at } = m
      if (!hasKeys(m, REQUEST_KEYS) || !isWireNumber(seq) || !isWireNumber(at)) return undefined
      return pack(REQUEST, resource, [term, seq, at])
    }
    case 'grant': {
      const { epoch, seq, token, at } = m
      if (
        !hasKeys(m, GRANT_KEYS) ||
        !isWireNumber(epoch) ||
        !isWireNumber(seq) ||
        !isWireNumber(token) ||
        !isWireNumber(at)
      ) {
        return undefined
      }
      return pack(GRANT, resource, [term, epoch, seq, token, at])
    }
    case 'release': {
      const { token } = m
      if (!hasKeys(m, RELEASE_KEYS) || !isWireNumber(token)) return undefined
      return pack(RELEASE, resource, [term, token])
    }
    default:
      return undefined
  }
}

/** The float64s after the tag and the name after them, checked against the datagram's length. */
function unpack(bytes: Uint8Array, count: number, what: string): { n: number[]; name: string } {
  const nameAt = 1 + count * 8
  if (bytes.length < nameAt + 2) {
    throw new CodecError(`${what}: ${bytes.length} bytes, too short for its fields`)
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length)
  const n: number[] = []
  for (let i = 0; i < count; i++) n.push(view.getFloat64(1 + i * 8, true))
  const length = view.getUint16(nameAt, true)
  if (bytes.length !== nameAt + 2 + length) {
    throw new CodecError(`${what}: ${bytes.length} bytes, its fields say ${nameAt + 2 + length}`)
  }
  for (const x of n) {
    if (!Number.isFinite(x)) throw new CodecError(`${what}: a field is not a finite number`)
  }
  return { n, name: decoder.decode(bytes.subarray(nameAt + 2)) }
}

function decodeBinary(bytes: Uint8Array): unknown {
  switch (bytes[0]) {
    case REQUEST: {
      const { n, name } = unpack(bytes, 3, 'REQUEST')
      return { type: 'request', term: n[0], resource: name, seq: n[1], at: n[2] }
    }
    case GRANT: {
      const { n, name } = unpack(bytes, 5, 'GRANT')
      return {
        type: 'grant',
        term: n[0],
        epoch: n[1],
        resource: name,
        seq: n[2],
        token: n[3],
        at: n[4],
      }
    }
    case RELEASE: {
      const { n, name } = unpack(bytes, 2, 'RELEASE')
      return { type: 'release', term: n[0], resource: name, token: n[1] }
    }
    default:
      throw new CodecError(`unknown message tag 0x${bytes[0]!.toString(16)}`)
  }
}

/**
 * The centralized lock's codec over `fallback` (e.g. `jsonCodec` of `@sd/transport/udp`): pass
 * it as `codec` to every transport of the group, clients and coordinator alike. `Msg` is what the
 * transports carry (the lock's messages, or a composition's that include them); the lock checks
 * every message it receives, as with any codec.
 */
export function centralizedCodec<Msg = CentralizedMessage>(
  fallback: WireCodec<unknown>,
): WireCodec<Msg> {
  return {
    name: `centralized+${fallback.name}`,
    encode: (msg) => encodeBinary(msg) ?? fallback.encode(msg),
    decode(bytes) {
      if (bytes.length === 0) throw new CodecError('an empty message')
      return (bytes[0]! >= 0x80 ? decodeBinary(bytes) : fallback.decode(bytes)) as Msg
    },
  }
}
