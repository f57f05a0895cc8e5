/**
 * `canonicalKey` writes plain data whose keys are in order with `JSON.stringify`, the rest
 * field by field: both must give the canonical text, and refuse the same things.
 */
import { describe, expect, it } from 'vitest'
import { canonicalKey } from '../src/index.js'

describe('canonicalKey, keys in order or not', () => {
  it('writes keys by code unit, integer-like keys included (JSON.stringify puts those first)', () => {
    expect(canonicalKey({ '10': 1, '9': 2, a: 3 })).toBe('{"10":1,"9":2,"a":3}')
    expect(canonicalKey({ b: 1, a: [{ d: 1, c: 2 }] })).toBe('{"a":[{"c":2,"d":1}],"b":1}')
    expect(canonicalKey({ a: 1, b: [1, 'x', null, true] })).toBe('{"a":1,"b":[1,"x",null,true]}')
  })

  it('writes -0 as 0 and takes a key named toJSON as data', () => {
    expect(canonicalKey({ a: -0 })).toBe('{"a":0}')
    expect(canonicalKey({ toJSON: 1 })).toBe('{"toJSON":1}')
  })

  it('refuses what is not plain data, keys in order or not', () => {
    expect(() => canonicalKey({ a: undefined })).toThrow(/a/)
    expect(() => canonicalKey({ a: Number.NaN })).toThrow()
    expect(() => canonicalKey({ a: () => 1 })).toThrow()
    expect(() => canonicalKey({ a: new Map() })).toThrow()
    // biome-ignore lint/suspicious/noSparseArray: a hole, which JSON.stringify would write as null
    expect(() => canonicalKey([1, , 2])).toThrow()
    expect(() => canonicalKey({ toJSON: () => 'x' })).toThrow()
  })
})
