/**
 * `cloneData` stands in for `JSON.parse(JSON.stringify(value))` where a checkpoint keeps and
 * restores a node's snapshot: for plain data it must give back what the JSON round trip gives
 * (same keys in the same order, -0 as 0), and share nothing with what it copied.
 */
import { describe, expect, it } from 'vitest'
import { cloneData } from '../src/clone-data.js'
import { createRandom } from '../src/index.js'

/** A random snapshot-like value. */
function randomValue(random: ReturnType<typeof createRandom>, depth = 0): unknown {
  const roll = random.int(0, depth > 2 ? 4 : 6)
  if (roll === 0) return null
  if (roll === 1) return random.int(0, 3) === 0
  if (roll === 2) return [random.int(-2, 3), 0.5, -0, 1e21][random.int(0, 3)]
  if (roll === 3) return ['a', 'b', '', 'é\u0000"'][random.int(0, 3)]
  if (roll === 4) return random.int(0, 1) === 0 ? [] : {}
  if (roll === 5)
    return Array.from({ length: random.int(0, 3) }, () => randomValue(random, depth + 1))
  const keys = ['k', '2', 'a', '10', 'clock'].filter(() => random.int(0, 1) === 0)
  const out: Record<string, unknown> = random.int(0, 3) === 0 ? Object.create(null) : {}
  for (const key of keys) out[key] = randomValue(random, depth + 1)
  return out
}

/** Every object and array reachable from `value`. */
function containers(value: unknown, into = new Set<object>()): Set<object> {
  if (value === null || typeof value !== 'object') return into
  into.add(value)
  for (const v of Object.values(value)) containers(v, into)
  return into
}

describe('cloneData', () => {
  it('gives back what a JSON round trip gives, sharing nothing', () => {
    const random = createRandom('clone-data')
    for (let i = 0; i < 500; i++) {
      const value = randomValue(random)
      const copy = cloneData(value)
      const json = JSON.parse(JSON.stringify(value))
      expect(copy).toStrictEqual(json)
      expect(JSON.stringify(copy)).toBe(JSON.stringify(json))
      const mine = containers(copy)
      for (const shared of containers(value)) expect(mine.has(shared)).toBe(false)
    }
  })

  it('writes -0 as 0, and keeps an own __proto__ key a key', () => {
    expect(Object.is(cloneData(-0), 0)).toBe(true)
    expect(Object.is((cloneData([-0]) as number[])[0], 0)).toBe(true)
    const tricky = JSON.parse('{"__proto__":{"x":1},"y":2}')
    const copy = cloneData(tricky) as Record<string, unknown>
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
    expect(Object.keys(copy)).toEqual(['__proto__', 'y'])
    expect(copy).toStrictEqual(JSON.parse(JSON.stringify(tricky)))
  })
})
