import { InvalidArgumentError } from '../../errors.js'
import { isNodeId, type NodeId } from '../../ids.js'
import {
  type AckRanges,
  ackBlockBytes,
  encodableAckRanges,
  MAX_ACK_BLOCK_BYTES,
  readAckBlock,
  writeAckBlock,
} from './ack-block.js'
import { getU16, getU32, getU48, putU16, putU32, putU48 } from './bytes.js'

/**
 * Wire format, version 2 (big-endian; the package README has the byte-by-byte table).
 *
 *   0  magic "sd" (0x73 0x64)      2  version          3  type      4  flags
 *   5  source incarnation u32      9  destination incarnation u32 (0 = unknown)
 *  13  packet number u48          19  source id field  ..  destination id field
 *   .. body (by type)              .. HMAC-SHA256 trailer (32 bytes) when flags has MAC
 *
 * Incarnations and packet numbers belong to one link (one pair of nodes): a node that forgets a
 * peer and meets it again starts a new link, which the peer sees as a restart.
 */
export const WIRE_VERSION = 2
export const MAGIC_0 = 0x73
export const MAGIC_1 = 0x64
export const FIXED_HEADER_BYTES = 19
export const MAC_BYTES = 32
export const FRAGMENT_FIELDS_BYTES = 8

export const PacketType = {
  /** Reliable data: seq, base, an optional piggybacked ack block, then the payload. */
  Data: 1,
  /** Acknowledgement only: an ack block. */
  Ack: 2,
  /** Unreliable data: just the payload. */
  Unreliable: 3,
  /** Handshake challenge: nonce. */
  Hello: 4,
  /** Handshake answer: the echoed nonce. */
  HelloReply: 5,
} as const
export type PacketType = (typeof PacketType)[keyof typeof PacketType]

/**
 * Mac: a 32-byte HMAC trailer. Fragment: fragment fields follow. Ack: an ack block follows.
 * Bundle (data only, never with Fragment): the payload is several messages, each behind a u16 length.
 */
export const Flag = { Mac: 0x01, Fragment: 0x02, Ack: 0x04, Bundle: 0x08 } as const
const KNOWN_FLAGS = Flag.Mac | Flag.Fragment | Flag.Ack | Flag.Bundle

const ID_NUMBER = 0
const ID_STRING = 1

export interface FragmentInfo {
  /** Identifies the message among the sender's fragmented messages. */
  msgId: number
  index: number
  count: number
}

/** The header fields a sender chooses. Ids travel as pre-encoded fields (see `encodeIdField`). */
export interface OutgoingHeader {
  type: PacketType
  srcInc: number
  dstInc: number
  pn: number
  srcIdField: Uint8Array
  dstIdField: Uint8Array
  /** Data: sequence number. */
  seq?: number
  /** Data: lowest sequence number the sender may still retransmit (lets the receiver skip abandoned ones). */
  base?: number
  /** Data (optional), Ack: packet numbers received from the peer (see ack-block.ts). */
  ack?: AckRanges
  /** Hello, HelloReply. */
  nonce?: number
  frag?: FragmentInfo
  /** Data: the payload is a bundle of messages (see `Flag.Bundle`). */
  bundle?: boolean
}

export interface Datagram {
  type: PacketType
  flags: number
  srcInc: number
  dstInc: number
  pn: number
  from: NodeId
  to: NodeId
  seq: number
  base: number
  ack: AckRanges | undefined
  nonce: number
  frag: FragmentInfo | undefined
  bundle: boolean
  payload: Uint8Array
  /** Bytes covered by the MAC (everything before the trailer). */
  signedLength: number
  /** Carries a MAC trailer (the bytes from `signedLength` on; read in place, never copied). */
  signed: boolean
}

export type DecodeFailure = 'truncated' | 'malformed' | 'bad-version'

/** Encodes an id as kind u8, length u8, bytes. Computed once per peer, not per datagram. */
export function encodeIdField(id: NodeId): Buffer {
  if (!isNodeId(id))
    throw new InvalidArgumentError(`node id must be a finite number or a string, got ${String(id)}`)
  if (typeof id === 'number') {
    const field = Buffer.allocUnsafe(10)
    field[0] = ID_NUMBER
    field[1] = 8
    field.writeDoubleBE(id, 2)
    return field
  }
  const bytes = Buffer.from(id, 'utf8')
  // Lone surrogates do not survive UTF-8: the peer would see another id.
  if (bytes.toString('utf8') !== id) {
    throw new InvalidArgumentError(`node id ${JSON.stringify(id)} is not well-formed Unicode`)
  }
  if (bytes.length > 255) {
    throw new InvalidArgumentError(
      `node id ${JSON.stringify(id.slice(0, 40))}... is ${bytes.length} bytes in UTF-8; the wire allows at most 255`,
    )
  }
  const field = Buffer.allocUnsafe(2 + bytes.length)
  field[0] = ID_STRING
  field[1] = bytes.length
  bytes.copy(field, 2)
  return field
}

/** Most bytes of the type-specific body before the payload (an ack block counted at its largest). */
export function bodyBytes(type: PacketType, fragmented: boolean): number {
  const frag = fragmented ? FRAGMENT_FIELDS_BYTES : 0
  switch (type) {
    case PacketType.Data:
      return DATA_FIELDS_BYTES + MAX_ACK_BLOCK_BYTES + frag
    case PacketType.Ack:
      return MAX_ACK_BLOCK_BYTES
    case PacketType.Unreliable:
      return frag
    default:
      return NONCE_BYTES
  }
}

const DATA_FIELDS_BYTES = 8
const NONCE_BYTES = 4

/** Builds a whole datagram; when `macBytes` > 0 the trailer is left for the signer to fill. */
export function encodeDatagram(
  h: OutgoingHeader,
  payload: Uint8Array | undefined,
  macBytes: number,
): Buffer {
  const fragmented = h.frag !== undefined
  const head = FIXED_HEADER_BYTES + h.srcIdField.length + h.dstIdField.length
  // Only data and acknowledgements carry an ack block, trimmed to what its fields can say.
  const ack =
    (h.type === PacketType.Data || h.type === PacketType.Ack) && h.ack !== undefined
      ? encodableAckRanges(h.ack)
      : undefined
  const ackBytes = ack === undefined ? 0 : ackBlockBytes(ack)
  let body = fragmented ? FRAGMENT_FIELDS_BYTES : 0
  if (h.type === PacketType.Data) body += DATA_FIELDS_BYTES + ackBytes
  else if (h.type === PacketType.Ack) body += ackBytes
  else if (h.type === PacketType.Hello || h.type === PacketType.HelloReply) body += NONCE_BYTES
  const total = head + body + (payload?.length ?? 0) + macBytes
  const buf = Buffer.allocUnsafe(total)
  buf[0] = MAGIC_0
  buf[1] = MAGIC_1
  buf[2] = WIRE_VERSION
  buf[3] = h.type
  buf[4] =
    (macBytes > 0 ? Flag.Mac : 0) |
    (fragmented ? Flag.Fragment : 0) |
    (ack !== undefined ? Flag.Ack : 0) |
    (h.bundle === true && h.type === PacketType.Data ? Flag.Bundle : 0)
  putU32(buf, 5, h.srcInc >>> 0)
  putU32(buf, 9, h.dstInc >>> 0)
  putU48(buf, 13, h.pn)
  buf.set(h.srcIdField, FIXED_HEADER_BYTES)
  buf.set(h.dstIdField, FIXED_HEADER_BYTES + h.srcIdField.length)
  let at = head
  switch (h.type) {
    case PacketType.Data:
      putU32(buf, at, (h.seq ?? 0) >>> 0)
      putU32(buf, at + 4, (h.base ?? 0) >>> 0)
      at += DATA_FIELDS_BYTES
      break
    case PacketType.Hello:
    case PacketType.HelloReply:
      putU32(buf, at, (h.nonce ?? 0) >>> 0)
      at += NONCE_BYTES
      break
  }
  if (ack !== undefined) at = writeAckBlock(buf, at, ack)
  if (h.frag !== undefined) {
    putU32(buf, at, h.frag.msgId >>> 0)
    putU16(buf, at + 4, h.frag.index)
    putU16(buf, at + 6, h.frag.count)
    at += FRAGMENT_FIELDS_BYTES
  }
  if (payload !== undefined) buf.set(payload, at)
  return buf
}

/** Short ASCII ids (the usual case) without the cost of a native UTF-8 decode per datagram. */
function readUtf8(buf: Buffer, start: number, end: number): string {
  if (end - start > 32) return buf.toString('utf8', start, end)
  let text = ''
  for (let i = start; i < end; i++) {
    const c = buf[i]!
    if (c > 0x7f) return buf.toString('utf8', start, end)
    text += String.fromCharCode(c)
  }
  return text
}

/** Where the id read last ends, or why it could not be read (module state: no object per id). */
let idEnd = 0
let idFailure: DecodeFailure = 'malformed'

/** Reads an id field at `at`: sets `idEnd`, or returns undefined and sets `idFailure`. */
function readId(buf: Buffer, at: number): NodeId | undefined {
  if (at + 2 > buf.length) return fail('truncated')
  const kind = buf[at]!
  const length = buf[at + 1]!
  const next = at + 2 + length
  if (next > buf.length) return fail('truncated')
  idEnd = next
  if (kind === ID_NUMBER) {
    if (length !== 8) return fail('malformed')
    const id = buf.readDoubleBE(at + 2)
    return Number.isFinite(id) ? id : fail('malformed')
  }
  if (kind === ID_STRING) return readUtf8(buf, at + 2, next)
  return fail('malformed')
}

function fail(reason: DecodeFailure): undefined {
  idFailure = reason
  return undefined
}

/**
 * Parses a datagram without trusting it: every length is checked against the buffer.
 * Never throws; returns why it could not parse instead. The payload is a view into `buf`.
 */
export function decodeDatagram(buf: Buffer): Datagram | DecodeFailure {
  if (buf.length < 3) return 'truncated'
  if (buf[0] !== MAGIC_0 || buf[1] !== MAGIC_1) return 'malformed'
  if (buf[2] !== WIRE_VERSION) return 'bad-version'
  if (buf.length < FIXED_HEADER_BYTES) return 'truncated'
  const type = buf[3]!
  if (type < PacketType.Data || type > PacketType.HelloReply) return 'malformed'
  const flags = buf[4]!
  if ((flags & ~KNOWN_FLAGS) !== 0) return 'malformed'
  const fragmented = (flags & Flag.Fragment) !== 0
  if (fragmented && type !== PacketType.Data && type !== PacketType.Unreliable) return 'malformed'
  const bundle = (flags & Flag.Bundle) !== 0
  if (bundle && (type !== PacketType.Data || fragmented)) return 'malformed'
  const acked = (flags & Flag.Ack) !== 0
  if (acked !== (type === PacketType.Ack) && type !== PacketType.Data) return 'malformed'
  if (getU32(buf, 5) === 0) return 'malformed'
  const from = readId(buf, FIXED_HEADER_BYTES)
  if (from === undefined) return idFailure
  const to = readId(buf, idEnd)
  if (to === undefined) return idFailure
  const macBytes = (flags & Flag.Mac) !== 0 ? MAC_BYTES : 0
  const end = buf.length - macBytes
  let at = idEnd
  let seq = 0
  let base = 0
  let nonce = 0
  switch (type) {
    case PacketType.Data:
      if (at + DATA_FIELDS_BYTES > end) return 'truncated'
      seq = getU32(buf, at)
      base = getU32(buf, at + 4)
      at += DATA_FIELDS_BYTES
      break
    case PacketType.Hello:
    case PacketType.HelloReply:
      if (at + NONCE_BYTES > end) return 'truncated'
      nonce = getU32(buf, at)
      at += NONCE_BYTES
      break
  }
  let ack: AckRanges | undefined
  if (acked) {
    const block = readAckBlock(buf, at, end)
    if (typeof block === 'string') return block
    ack = block
    at += ackBlockBytes(block)
  }
  let frag: FragmentInfo | undefined
  if (fragmented) {
    if (at + FRAGMENT_FIELDS_BYTES > end) return 'truncated'
    frag = {
      msgId: getU32(buf, at),
      index: getU16(buf, at + 4),
      count: getU16(buf, at + 6),
    }
    at += FRAGMENT_FIELDS_BYTES
    // Every fragment carries at least one byte: empty ones would cost memory and carry nothing.
    if (frag.count < 2 || frag.index >= frag.count || at === end) return 'malformed'
  }
  const hasPayload = type === PacketType.Data || type === PacketType.Unreliable
  if (!hasPayload && at !== end) return 'malformed'
  return {
    type: type as PacketType,
    flags,
    srcInc: getU32(buf, 5),
    dstInc: getU32(buf, 9),
    pn: getU48(buf, 13),
    from,
    to,
    seq,
    base,
    ack,
    nonce,
    frag,
    bundle,
    payload: buf.subarray(at, end),
    signedLength: end,
    signed: macBytes > 0,
  }
}

/** Bytes a message takes inside a bundle. */
export function bundledBytes(payloadLength: number): number {
  return BUNDLE_LENGTH_BYTES + payloadLength
}

const BUNDLE_LENGTH_BYTES = 2

/** Writes messages as one bundle payload: u16 length, bytes, repeated. */
export function encodeBundle(payloads: readonly Uint8Array[], total: number): Buffer {
  const out = Buffer.allocUnsafe(total)
  let at = 0
  for (const p of payloads) {
    out.writeUInt16BE(p.length, at)
    out.set(p, at + BUNDLE_LENGTH_BYTES)
    at += BUNDLE_LENGTH_BYTES + p.length
  }
  return out
}

/**
 * How many messages a bundle payload holds, or 0 when it is not a valid bundle: lengths that do not
 * add up, fewer than two messages, or an empty one. Senders never bundle an empty message (it
 * travels alone), so a bundle of empty messages can only be hostile: refused for the cost of
 * reading its lengths, without an object per message.
 */
export function bundleCount(payload: Uint8Array): number {
  let count = 0
  let at = 0
  while (at < payload.length) {
    if (at + BUNDLE_LENGTH_BYTES > payload.length) return 0
    const length = (payload[at]! << 8) | payload[at + 1]!
    at += BUNDLE_LENGTH_BYTES + length
    if (length === 0 || at > payload.length) return 0
    count++
  }
  return count >= 2 ? count : 0
}

/** The message of a valid bundle (see `bundleCount`) that starts at `at`, as a view; its end is `at` + 2 + its length. */
export function bundlePart(payload: Uint8Array, at: number): Uint8Array {
  const length = (payload[at]! << 8) | payload[at + 1]!
  return payload.subarray(at + BUNDLE_LENGTH_BYTES, at + BUNDLE_LENGTH_BYTES + length)
}

/** Splits a bundle payload (views, no copies), or returns undefined when it is not a valid bundle. */
export function decodeBundle(payload: Uint8Array): Uint8Array[] | undefined {
  const count = bundleCount(payload)
  if (count === 0) return undefined
  const parts: Uint8Array[] = []
  for (let at = 0; at < payload.length; ) {
    const part = bundlePart(payload, at)
    parts.push(part)
    at += BUNDLE_LENGTH_BYTES + part.length
  }
  return parts
}
