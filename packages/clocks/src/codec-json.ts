/** The JSON codec of the clocks (`clockToJSON`, `clockFromJSON`). */

import {
  type ClockKind,
  type DecodedClock,
  type EncodableClock,
  lamportValue,
  tagOf,
  type ValueOf,
} from './codec-kinds.js'
import { ClockDecodeError, ClockError } from './errors.js'
import { checkHlc } from './hlc.js'
import { isNodeId, type NodeId } from './ids.js'
import { DenseVectorClock } from './vector-dense.js'
import { SparseVectorClock } from './vector-sparse.js'

// ---- JSON --------------------------------------------------------------------------------------
//
// { "kind": "lamport", "time": 3, "pid": "A" }
// { "kind": "vector-dense", "self": 0, "values": [1, 0, 2] }
// { "kind": "vector-sparse", "self": "A", "entries": [["A", 1], [2, 3]] }   (ids keep their type)
// { "kind": "hlc", "wall": 1700000000000, "counter": 2 }

/** The JSON form as an object (what JSON.stringify writes). */
export function clockToJSONValue(clock: EncodableClock): Record<string, unknown> {
  const tagged = tagOf(clock)
  const kind = tagged.kind
  switch (tagged.kind) {
    case 'lamport': {
      const ts = lamportValue(tagged.value)
      return { kind, time: ts.time, pid: ts.pid }
    }
    case 'vector-dense':
      return tagged.value.toJSON()
    case 'vector-sparse':
      return tagged.value.toJSON()
    case 'hlc': {
      const ts = tagged.value
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
