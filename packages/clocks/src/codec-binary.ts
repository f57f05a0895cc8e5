/** The binary codec of the clocks (`encodeClock`, `decodeClock`). */

import {
  type ClockKind,
  type DecodedClock,
  type EncodableClock,
  lamportValue,
  tagOf,
  type ValueOf,
} from './codec-kinds.js'
import { ClockDecodeError, ClockError } from './errors.js'
import { checkHlc, HLC_MAX_WALL } from './hlc.js'
import type { NodeId } from './ids.js'
import { DenseVectorClock } from './vector-dense.js'
import { SparseVectorClock } from './vector-sparse.js'

// ---- binary ------------------------------------------------------------------------------------
//
// One header byte: high nibble the format version (1), low nibble the kind. Then:
//   lamport        varint time, id
//   vector-dense   varint self, varint n, n varints
//   vector-sparse  id self, varint k, k x (id, varint value)
//   hlc            48-bit wall, 32-bit counter, big-endian (so bytes sort like timestamps)
// varint = unsigned LEB128 up to 2^53 - 1; id = tag 0 + varint (integer >= 0),
// tag 1 + varint length + UTF-8 (string), tag 2 + float64 LE (any other number).

const VERSION = 1
const KIND_CODE: Record<ClockKind, number> = {
  lamport: 1,
  'vector-dense': 2,
  'vector-sparse': 3,
  hlc: 4,
}
const CODE_KIND: Record<number, ClockKind> = {
  1: 'lamport',
  2: 'vector-dense',
  3: 'vector-sparse',
  4: 'hlc',
}

class Writer {
  private buf = new Uint8Array(32)
  private len = 0

  byte(b: number): void {
    if (this.len === this.buf.length) {
      const bigger = new Uint8Array(this.buf.length * 2)
      bigger.set(this.buf)
      this.buf = bigger
    }
    this.buf[this.len++] = b
  }

  bytes(bs: Uint8Array): void {
    for (const b of bs) this.byte(b)
  }

  varint(value: number): void {
    let v = value
    while (v >= 0x80) {
      this.byte((v % 0x80) | 0x80)
      v = Math.floor(v / 0x80)
    }
    this.byte(v)
  }

  id(id: NodeId): void {
    if (typeof id === 'string') {
      const utf8 = new TextEncoder().encode(id)
      this.byte(1)
      this.varint(utf8.length)
      this.bytes(utf8)
    } else if (Number.isSafeInteger(id) && id >= 0) {
      this.byte(0)
      this.varint(id)
    } else {
      const f = new Uint8Array(8)
      new DataView(f.buffer).setFloat64(0, id, true)
      this.byte(2)
      this.bytes(f)
    }
  }

  result(): Uint8Array {
    return this.buf.slice(0, this.len)
  }
}

const utf8Decoder = new TextDecoder('utf-8', { fatal: true })

class Reader {
  pos = 0
  constructor(private readonly bytes: Uint8Array) {}

  get remaining(): number {
    return this.bytes.length - this.pos
  }

  byte(what: string): number {
    const b = this.bytes[this.pos]
    if (b === undefined) throw new ClockDecodeError(`truncated input: expected ${what}`, this.pos)
    this.pos++
    return b
  }

  varint(what: string): number {
    const start = this.pos
    let value = 0
    let scale = 1
    for (let i = 0; ; i++) {
      const b = this.byte(what)
      if (i > 0 && b === 0) throw new ClockDecodeError(`over-long varint in ${what}`, start)
      value += (b & 0x7f) * scale
      if ((b & 0x80) === 0) break
      scale *= 0x80
      if (i === 7) throw new ClockDecodeError(`varint too long in ${what}`, start)
    }
    if (value > Number.MAX_SAFE_INTEGER) {
      throw new ClockDecodeError(`${what} ${value} passes Number.MAX_SAFE_INTEGER`, start)
    }
    return value
  }

  /** A count of items that each take at least `minBytes`: refuse counts the input cannot hold. */
  count(what: string, minBytes: number): number {
    const start = this.pos
    const n = this.varint(what)
    if (n * minBytes > this.remaining) {
      throw new ClockDecodeError(`${what} says ${n} but only ${this.remaining} bytes remain`, start)
    }
    return n
  }

  take(n: number, what: string): Uint8Array {
    if (n > this.remaining)
      throw new ClockDecodeError(`truncated input: expected ${what}`, this.pos)
    const out = this.bytes.subarray(this.pos, this.pos + n)
    this.pos += n
    return out
  }

  id(what: string): NodeId {
    const start = this.pos
    const tag = this.byte(`${what} tag`)
    if (tag === 0) return this.varint(what)
    if (tag === 1) {
      const len = this.count(`${what} length`, 1)
      try {
        return utf8Decoder.decode(this.take(len, what))
      } catch (cause) {
        throw new ClockDecodeError(`${what} is not valid UTF-8`, start, { cause })
      }
    }
    if (tag === 2) {
      const f = this.take(8, what)
      const value = new DataView(f.buffer, f.byteOffset, 8).getFloat64(0, true)
      if (!Number.isFinite(value))
        throw new ClockDecodeError(`${what} is not a finite number`, start)
      return value
    }
    throw new ClockDecodeError(`unknown id tag ${tag} in ${what}`, start)
  }
}

/** The compact binary form (see the layout above). Round-trips with `decodeClock`. */
export function encodeClock(clock: EncodableClock): Uint8Array {
  const tagged = tagOf(clock)
  const kind = tagged.kind
  const w = new Writer()
  w.byte((VERSION << 4) | KIND_CODE[kind])
  switch (tagged.kind) {
    case 'lamport': {
      const ts = lamportValue(tagged.value)
      w.varint(ts.time)
      w.id(ts.pid)
      break
    }
    case 'vector-dense': {
      const c = tagged.value
      w.varint(c.self)
      w.varint(c.size)
      for (const v of c.values) w.varint(v)
      break
    }
    case 'vector-sparse': {
      const c = tagged.value
      w.id(c.self)
      w.varint(c.size)
      for (const [id, v] of c.entries()) {
        w.id(id)
        w.varint(v)
      }
      break
    }
    case 'hlc': {
      const ts = tagged.value
      checkHlc(ts, 'encodeClock')
      let wall = ts.wall
      const bytes = new Uint8Array(10)
      for (let i = 5; i >= 0; i--) {
        bytes[i] = wall % 256
        wall = Math.floor(wall / 256)
      }
      new DataView(bytes.buffer).setUint32(6, ts.counter, false)
      w.bytes(bytes)
      break
    }
  }
  return w.result()
}

export function decodeClock(bytes: Uint8Array): DecodedClock
export function decodeClock<K extends ClockKind>(bytes: Uint8Array, expect: K): ValueOf<K>
/** Decodes the binary form; with `expect`, also checks the kind and returns the bare value. */
export function decodeClock(
  bytes: Uint8Array,
  expect?: ClockKind,
): DecodedClock | DecodedClock['value'] {
  if (!(bytes instanceof Uint8Array)) {
    throw new ClockDecodeError(`decodeClock expects a Uint8Array, got ${typeof bytes}`)
  }
  const r = new Reader(bytes)
  const header = r.byte('the header byte')
  if (header >> 4 !== VERSION) {
    throw new ClockDecodeError(
      `unknown format version ${header >> 4} (this library reads version ${VERSION}); was it encoded by encodeClock?`,
      0,
    )
  }
  const kind = CODE_KIND[header & 0x0f]
  if (kind === undefined) throw new ClockDecodeError(`unknown clock kind ${header & 0x0f}`, 0)
  if (expect !== undefined && kind !== expect) {
    throw new ClockDecodeError(`expected a ${expect} clock but the bytes hold a ${kind} clock`, 0)
  }
  let decoded: DecodedClock
  try {
    decoded = decodeBody(r, kind)
  } catch (error) {
    if (error instanceof ClockDecodeError) throw error
    if (error instanceof ClockError) {
      throw new ClockDecodeError(`invalid ${kind} clock: ${error.message}`, r.pos, { cause: error })
    }
    throw error
  }
  if (r.remaining !== 0) {
    throw new ClockDecodeError(
      `${r.remaining} unexpected trailing bytes after a ${kind} clock`,
      r.pos,
    )
  }
  return expect === undefined ? decoded : decoded.value
}

function decodeBody(r: Reader, kind: ClockKind): DecodedClock {
  switch (kind) {
    case 'lamport': {
      const time = r.varint('Lamport time')
      const pid = r.id('Lamport pid')
      return { kind, value: { time, pid } }
    }
    case 'vector-dense': {
      const self = r.varint('dense self index')
      const n = r.count('dense size', 1)
      const values = new Array<number>(n)
      for (let k = 0; k < n; k++) values[k] = r.varint(`dense entry ${k}`)
      return { kind, value: new DenseVectorClock(n, self, values) }
    }
    case 'vector-sparse': {
      const self = r.id('sparse self id')
      const k = r.count('sparse entry count', 3)
      const entries: [NodeId, number][] = []
      const seen = new Set<NodeId>()
      for (let i = 0; i < k; i++) {
        const id = r.id(`sparse entry ${i} id`)
        const start = r.pos
        const value = r.varint(`sparse entry ${i} value`)
        if (seen.has(id))
          throw new ClockDecodeError(`sparse entry ${JSON.stringify(id)} appears twice`, start)
        if (value === 0)
          throw new ClockDecodeError(
            `sparse entry ${JSON.stringify(id)} is 0 (zeros are never stored)`,
            start,
          )
        seen.add(id)
        entries.push([id, value])
      }
      return { kind, value: new SparseVectorClock(self, entries) }
    }
    case 'hlc': {
      const b = r.take(10, 'a 10-byte HLC timestamp')
      let wall = 0
      for (let i = 0; i < 6; i++) wall = wall * 256 + b[i]!
      const counter = new DataView(b.buffer, b.byteOffset, 10).getUint32(6, false)
      if (wall > HLC_MAX_WALL) throw new ClockDecodeError('HLC wall time out of range', 1)
      return { kind, value: { wall, counter } }
    }
  }
}
