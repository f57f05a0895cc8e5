import { describe, expect, expectTypeOf, it } from 'vitest'
import {
  arrayOf,
  intIn,
  isFiniteNumber,
  isNodeId,
  isNonNegInt,
  isRecord,
  isString,
  messageParser,
  numberIn,
  oneOf,
  optional,
  shape,
} from '../src/index.js'

describe('wire validation kit', () => {
  it('isRecord takes plain objects only, and refuses prototype-pollution keys', () => {
    expect(isRecord({ a: 1 })).toBe(true)
    expect(isRecord(Object.create(null))).toBe(true)
    expect(isRecord(JSON.parse('{"type":"x"}'))).toBe(true)
    for (const bad of [null, undefined, 1, 'x', [], [1], new Date(0), new Map(), () => 1]) {
      expect(isRecord(bad), String(bad)).toBe(false)
    }
    // JSON.parse makes these own keys (an object literal's `__proto__:` would set the prototype).
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      expect(isRecord(JSON.parse(`{"type":"x","${key}":{"polluted":true}}`)), key).toBe(false)
    }
  })

  it('number guards refuse NaN, infinities, fractions and out-of-range values', () => {
    for (const v of [0, 1, Number.MAX_SAFE_INTEGER]) expect(isNonNegInt(v)).toBe(true)
    for (const v of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, 1e308, '1', null]) {
      expect(isNonNegInt(v), String(v)).toBe(false)
    }
    expect(isFiniteNumber(-1.5)).toBe(true)
    for (const v of [Number.NaN, Number.NEGATIVE_INFINITY, '3'])
      expect(isFiniteNumber(v)).toBe(false)
    const ms = numberIn(-10, 10)
    expect([ms(-10), ms(10), ms(0.5), ms(10.01), ms(Number.NaN)]).toEqual([
      true,
      true,
      true,
      false,
      false,
    ])
    const small = intIn(1, 3)
    expect([small(0), small(1), small(3), small(2.5), small(4)]).toEqual([
      false,
      true,
      true,
      false,
      false,
    ])
  })

  it('oneOf, arrayOf (bounded) and optional', () => {
    const kind = oneOf('slew', 'step')
    expect([kind('slew'), kind('jump'), kind(undefined)]).toEqual([true, false, false])
    expectTypeOf(kind).guards.toEqualTypeOf<'slew' | 'step'>()
    const ids = arrayOf(isNodeId, { min: 1, max: 3 })
    expect([ids([1, 'b']), ids([]), ids([1, 2, 3, 4]), ids([1, null]), ids('ab')]).toEqual([
      true,
      false,
      false,
      false,
      false,
    ])
    const maybe = optional(isString)
    expect([maybe(undefined), maybe('x'), maybe(1)]).toEqual([true, true, false])
  })

  it('shape checks the listed fields, nested shapes included, and types the result', () => {
    const ref = shape({ id: isString, home: isNodeId })
    const entry = shape({ ref, req: isNonNegInt })
    const value: unknown = { ref: { id: 'p1', home: 2 }, req: 3, extra: true }
    expect(entry(value)).toBe(true)
    if (entry(value)) expectTypeOf(value.ref.home).toEqualTypeOf<string | number>()
    expect(entry({ ref: { id: 'p1' }, req: 3 })).toBe(false)
    expect(entry({ ref: JSON.parse('{"id":"p","home":1,"__proto__":{}}'), req: 3 })).toBe(false)
    expect(entry([{ ref: { id: 'p1', home: 2 }, req: 3 }])).toBe(false)
  })

  it('messageParser returns the message, or why it does not fit its declared type', () => {
    type Msg = { type: 'ping'; seq: number } | { type: 'pong'; seq: number; at: number }
    const parse = messageParser<Msg>({
      ping: { seq: isNonNegInt },
      pong: { seq: isNonNegInt, at: isFiniteNumber },
    })
    expect(parse({ type: 'pong', seq: 1, at: 2.5 })).toEqual({ type: 'pong', seq: 1, at: 2.5 })
    expect(parse(null)).toBe('not an object')
    expect(parse({ type: 'pang', seq: 1 })).toBe('unknown message type "pang"')
    expect(parse({ type: 7 })).toBe('unknown message type number')
    expect(parse({ seq: 1 })).toBe('unknown message type undefined')
    expect(parse({ type: 'toString' })).toBe('unknown message type "toString"')
    expect(parse({ type: 'x'.repeat(10_000) })).toHaveLength('unknown message type ""'.length + 40)
    expect(parse({ type: 'pong', seq: 1, at: Number.POSITIVE_INFINITY })).toBe('malformed pong: at')
    expect(parse({ type: 'ping', seq: -1 })).toBe('malformed ping: seq')
    expect(parse(JSON.parse('{"type":"ping","seq":1,"__proto__":{"x":1}}'))).toBe('not an object')
  })
})
