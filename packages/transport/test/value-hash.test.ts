/**
 * `hashValue` hashes plain data as it is, for the explorer's state keys: equal canonical keys
 * must give equal hashes (whatever the order keys were made in), it must refuse what
 * `canonicalKey` refuses, and it should tell apart what the keys tell apart.
 */
import { describe, expect, it } from 'vitest'
import { canonicalKey } from '../src/canonical.js'
import { type Hash64, hashHex } from '../src/hash64.js'
import { createRandom } from '../src/index.js'
import { hashValue } from '../src/value-hash.js'

const hex = (value: unknown) => hashHex(hashValue(value, { hi: 0, lo: 0 } as Hash64))

/** A random small snapshot-like value, its object keys made in a random order. */
function randomValue(random: ReturnType<typeof createRandom>, depth = 0): unknown {
  const roll = random.int(0, depth > 2 ? 4 : 6)
  if (roll === 0) return null
  if (roll === 1) return random.int(0, 3) === 0
  if (roll === 2) return random.int(-2, 3) + (random.int(0, 3) === 0 ? 0.5 : 0)
  if (roll === 3) return ['a', 'b', 'ab', '', 'x'.repeat(70)][random.int(0, 4)]
  if (roll === 4) return random.int(0, 1) === 0 ? [] : {}
  if (roll === 5)
    return Array.from({ length: random.int(0, 3) }, () => randomValue(random, depth + 1))
  const keys = ['k', 'a', 'b', 'clock', 'z'].filter(() => random.int(0, 1) === 0)
  const out: Record<string, unknown> = {}
  for (const key of keys) out[key] = randomValue(random, depth + 1)
  return out
}

/** The same data, each object's keys made in reverse order. */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed)
  if (value === null || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value).reverse())
    out[key] = reversed((value as Record<string, unknown>)[key])
  return out
}

describe('hashValue', () => {
  it('gives equal hashes exactly when the canonical keys are equal (on random values)', () => {
    const random = createRandom('value-hash')
    const byKey = new Map<string, string>()
    const byHash = new Map<string, string>()
    for (let i = 0; i < 3000; i++) {
      const value = randomValue(random)
      const key = canonicalKey(value)
      const hash = hex(value)
      expect(hex(reversed(value))).toBe(hash)
      expect(hex(JSON.parse(JSON.stringify(value)))).toBe(hash)
      if (byKey.has(key)) expect(byKey.get(key)).toBe(hash)
      byKey.set(key, hash)
      if (byHash.has(hash)) expect(byHash.get(hash)).toBe(key)
      byHash.set(hash, key)
    }
    expect(byKey.size).toBeGreaterThan(300)
  })

  it('hashes -0 as 0, and tells apart what only nesting or type tells apart', () => {
    expect(hex({ a: -0 })).toBe(hex({ a: 0 }))
    expect(hex([1, [2]])).not.toBe(hex([[1], 2]))
    expect(hex({ a: { b: 1 } })).not.toBe(hex({ a: 1, b: 1 }))
    expect(hex(['1'])).not.toBe(hex([1]))
    expect(hex({ a: 'b' })).not.toBe(hex({ b: 'a' }))
    expect(hex(1.5)).not.toBe(hex(1))
  })

  it('tells apart objects whose values only move between keys (entries are summed)', () => {
    const seen = new Map<string, string>()
    const put = (value: unknown) => {
      const hash = hex(value)
      const key = canonicalKey(value)
      expect(seen.get(hash) ?? key, `${key} collides`).toBe(key)
      seen.set(hash, key)
    }
    for (let a = 0; a < 31; a++) for (let b = 0; b < 31; b++) put({ x: a, y: b })
    for (let a = 0; a < 10; a++)
      for (let b = 0; b < 10; b++)
        for (let c = 0; c < 10; c++) {
          put({ clock: a, time: b, token: c })
          put({ view: { peers: [a, b] }, time: c })
        }
    const names = ['WANTED', 'HELD', 'RELEASED', 'x', 'y']
    for (const a of names) for (const b of names) put({ [a]: b, state: a })
    expect(seen.size).toBe(31 * 31 + 2 * 1000 + names.length * names.length)
  })

  it('refuses what canonicalKey refuses, naming where', () => {
    const at = () => 'snapshot of node 1'
    const refuse = (value: unknown) => () => hashValue(value, { hi: 0, lo: 0 }, at)
    expect(refuse({ a: undefined })).toThrow(/snapshot of node 1\.a/)
    expect(refuse({ a: Number.NaN })).toThrow()
    expect(refuse({ a: () => 1 })).toThrow()
    expect(refuse({ a: new Map() })).toThrow(/a Map/)
    // biome-ignore lint/suspicious/noSparseArray: a hole
    expect(refuse([1, , 2])).toThrow()
  })
})
