import { ClockDecodeError, ClockError, InvalidClockArgumentError } from './errors.js'
import { checkHlc, HLC_MAX_WALL, type HlcTimestamp } from './hlc.js'
import { isNodeId, type NodeId } from './ids.js'
import { LamportClock, type LamportTimestamp } from './lamport.js'
import { DenseVectorClock } from './vector-dense.js'
import { SparseVectorClock } from './vector-sparse.js'

/** The kinds of clock value the codecs carry. */
export type ClockKind = 'lamport' | 'vector-dense' | 'vector-sparse' | 'hlc'

/** What `encodeClock` / `clockToJSON` accept. */
export type EncodableClock =
  | LamportClock
  | LamportTimestamp
  | DenseVectorClock
  | SparseVectorClock
  | HlcTimestamp

/** A decoded value, tagged with its kind. */
export type DecodedClock =
  | { kind: 'lamport'; value: LamportTimestamp }
  | { kind: 'vector-dense'; value: DenseVectorClock }
  | { kind: 'vector-sparse'; value: SparseVectorClock }
  | { kind: 'hlc'; value: HlcTimestamp }

type ValueOf<K extends ClockKind> = Extract<DecodedClock, { kind: K }>['value']

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

function kindOf(clock: EncodableClock): ClockKind {
  if (clock instanceof DenseVectorClock) return 'vector-dense'
  if (clock instanceof SparseVectorClock) return 'vector-sparse'
  if (clock instanceof LamportClock) return 'lamport'
  if (clock !== null && typeof clock === 'object') {
    if ('time' in clock && 'pid' in clock) return 'lamport'
    if ('wall' in clock && 'counter' in clock) return 'hlc'
  }
  throw new InvalidClockArgumentError(
    `cannot encode ${String(clock)}: expected a Lamport clock or timestamp, a dense or sparse vector clock, or an HLC timestamp`,
  )
}

function lamportValue(clock: LamportClock | LamportTimestamp): LamportTimestamp {
  const ts = clock instanceof LamportClock ? clock.timestamp : clock
  if (!Number.isSafeInteger(ts.time) || ts.time < 0 || !isNodeId(ts.pid)) {
    throw new InvalidClockArgumentError(
      `cannot encode Lamport timestamp ${JSON.stringify(ts)}: time must be an integer >= 0 and pid a finite number or a string`,
    )
  }
  return { time: ts.time, pid: ts.pid }
}

/** The compact binary form (see the layout above). Round-trips with `decodeClock`. */
export function encodeClock(clock: EncodableClock): Uint8Array {
  const kind = kindOf(clock)
  const w = new Writer()
  w.byte((VERSION << 4) | KIND_CODE[kind])
  switch (kind) {
    case 'lamport': {
      const ts = lamportValue(clock as LamportClock | LamportTimestamp)
      w.varint(ts.time)
      w.id(ts.pid)
      break
    }
    case 'vector-dense': {
      const c = clock as DenseVectorClock
      w.varint(c.self)
      w.varint(c.size)
      for (const v of c.values) w.varint(v)
      break
    }
    case 'vector-sparse': {
      const c = clock as SparseVectorClock
      w.id(c.self)
      w.varint(c.size)
      for (const [id, v] of c.entries()) {
        w.id(id)
        w.varint(v)
      }
      break
    }
    case 'hlc': {
      const ts = clock as HlcTimestamp
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

// ---- JSON --------------------------------------------------------------------------------------
//
// { "kind": "lamport", "time": 3, "pid": "A" }
// { "kind": "vector-dense", "self": 0, "values": [1, 0, 2] }
// { "kind": "vector-sparse", "self": "A", "entries": [["A", 1], [2, 3]] }   (ids keep their type)
// { "kind": "hlc", "wall": 1700000000000, "counter": 2 }

/** The JSON form as an object (what JSON.stringify writes). */
export function clockToJSONValue(clock: EncodableClock): Record<string, unknown> {
  const kind = kindOf(clock)
  switch (kind) {
    case 'lamport': {
      const ts = lamportValue(clock as LamportClock | LamportTimestamp)
      return { kind, time: ts.time, pid: ts.pid }
    }
    case 'vector-dense':
      return (clock as DenseVectorClock).toJSON()
    case 'vector-sparse':
      return (clock as SparseVectorClock).toJSON()
    case 'hlc': {
      const ts = clock as HlcTimestamp
      checkHlc(ts, 'clockToJSON')
      return { kind, wall: ts.wall, counter: ts.counter }
    }
  }
}

/** The JSON text form. Round-trips with `clockFromJSON`. */
export function clockToJSON(clock: EncodableClock): string {
  return JSON.stringify(clockToJSONValue(clock))
}

export function clockFromJSON(input: string | unknown): DecodedClock
export function clockFromJSON<K extends ClockKind>(input: string | unknown, expect: K): ValueOf<K>
/** Parses the JSON form (text, or an already parsed value); with `expect`, checks the kind. */
export function clockFromJSON(
  input: string | unknown,
  expect?: ClockKind,
): DecodedClock | DecodedClock['value'] {
  let value: unknown = input
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input)
    } catch (cause) {
      throw new ClockDecodeError(
        `clock JSON does not parse: ${(cause as Error).message}`,
        undefined,
        {
          cause,
        },
      )
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ClockDecodeError('clock JSON must be an object with a "kind" field')
  }
  const o = value as Record<string, unknown>
  const kind = o.kind
  if (kind !== 'lamport' && kind !== 'vector-dense' && kind !== 'vector-sparse' && kind !== 'hlc') {
    throw new ClockDecodeError(
      `unknown clock kind ${JSON.stringify(kind)}; expected "lamport", "vector-dense", "vector-sparse" or "hlc"`,
    )
  }
  if (expect !== undefined && kind !== expect) {
    throw new ClockDecodeError(`expected a ${expect} clock but the JSON holds a ${kind} clock`)
  }
  let decoded: DecodedClock
  try {
    decoded = fromJSONObject(kind, o)
  } catch (error) {
    if (error instanceof ClockDecodeError) throw error
    if (error instanceof ClockError) {
      throw new ClockDecodeError(`invalid ${kind} clock JSON: ${error.message}`, undefined, {
        cause: error,
      })
    }
    throw error
  }
  return expect === undefined ? decoded : decoded.value
}

function field(o: Record<string, unknown>, name: string, kind: ClockKind): unknown {
  if (!(name in o)) throw new ClockDecodeError(`${kind} clock JSON lacks the "${name}" field`)
  return o[name]
}

function integerField(o: Record<string, unknown>, name: string, kind: ClockKind): number {
  const v = field(o, name, kind)
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    throw new ClockDecodeError(
      `${kind} clock JSON: "${name}" must be an integer >= 0, got ${JSON.stringify(v)}`,
    )
  }
  return v
}

function idField(v: unknown, what: string): NodeId {
  if (!isNodeId(v))
    throw new ClockDecodeError(
      `${what} must be a finite number or a string, got ${JSON.stringify(v)}`,
    )
  return v
}

function fromJSONObject(kind: ClockKind, o: Record<string, unknown>): DecodedClock {
  switch (kind) {
    case 'lamport':
      return {
        kind,
        value: {
          time: integerField(o, 'time', kind),
          pid: idField(field(o, 'pid', kind), 'lamport "pid"'),
        },
      }
    case 'vector-dense': {
      const self = integerField(o, 'self', kind)
      const values = field(o, 'values', kind)
      if (!Array.isArray(values) || values.length === 0) {
        throw new ClockDecodeError(
          'vector-dense clock JSON: "values" must be a non-empty array of integers',
        )
      }
      for (const v of values) {
        if (typeof v !== 'number')
          throw new ClockDecodeError(
            `vector-dense clock JSON: entry ${JSON.stringify(v)} is not a number`,
          )
      }
      return { kind, value: new DenseVectorClock(values.length, self, values as number[]) }
    }
    case 'vector-sparse': {
      const self = idField(field(o, 'self', kind), 'vector-sparse "self"')
      const raw = field(o, 'entries', kind)
      if (!Array.isArray(raw))
        throw new ClockDecodeError(
          'vector-sparse clock JSON: "entries" must be an array of [id, value] pairs',
        )
      const entries: [NodeId, number][] = []
      const seen = new Set<NodeId>()
      for (const pair of raw) {
        if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[1] !== 'number') {
          throw new ClockDecodeError(
            `vector-sparse clock JSON: entry ${JSON.stringify(pair)} is not an [id, value] pair`,
          )
        }
        const id = idField(pair[0], 'vector-sparse entry id')
        if (seen.has(id))
          throw new ClockDecodeError(
            `vector-sparse clock JSON: id ${JSON.stringify(id)} appears twice`,
          )
        seen.add(id)
        entries.push([id, pair[1]])
      }
      return { kind, value: new SparseVectorClock(self, entries) }
    }
    case 'hlc': {
      const value = {
        wall: integerField(o, 'wall', kind),
        counter: integerField(o, 'counter', kind),
      }
      checkHlc(value, 'hlc clock JSON')
      return { kind, value }
    }
  }
}
