/**
 * The visited set's table: every state put in is found again with what was recorded, through the
 * table's growth, with hashes that share a home slot, and whether or not `find` was asked first.
 */
import { describe, expect, it } from 'vitest'
import { VisitedTable } from '../../src/explore/visited.js'
import { createRandom } from '../../src/index.js'

describe('VisitedTable', () => {
  it('finds each state recorded, through growth and collisions', () => {
    const random = createRandom('visited')
    const table = new VisitedTable()
    const kept: Array<{ hi: number; lo: number; left: number }> = []
    const seen = new Set<string>()
    for (let i = 0; i < 20_000; i++) {
      // Every fourth hash shares its low word with the one before: same home slot often.
      const lo = i % 4 === 0 && i > 0 ? kept[i - 1]!.lo : random.int(0, 0xffffffff)
      const h = { hi: random.int(0, 0xffffffff), lo, left: i % 50 }
      if (seen.has(`${h.hi}:${h.lo}`)) continue
      seen.add(`${h.hi}:${h.lo}`)
      const slot = i % 3 === 0 ? -1 : table.find(h)
      expect(slot).toBe(-1)
      table.set(h, slot, h.left, i % 7 === 0 ? new Set([`m${i % 5}`]) : undefined)
      kept.push(h)
    }
    expect(table.size).toBe(kept.length)
    for (const [i, h] of kept.entries()) {
      const slot = table.find(h)
      expect(slot).toBeGreaterThanOrEqual(0)
      expect(table.left(slot)).toBe(h.left)
      if (i % 7 === 0) expect([...(table.asleep(slot) ?? [])]).toHaveLength(1)
    }
    expect(table.find({ hi: 1, lo: 2 })).toBe(-1)
  })

  it('updates a state in place when met again', () => {
    const table = new VisitedTable()
    const h = { hi: 0xdeadbeef, lo: 0xfeedface }
    table.set(h, table.find(h), 3, new Set(['a', 'b']))
    const slot = table.find(h)
    table.set(h, slot, 9, undefined)
    expect(table.size).toBe(1)
    expect(table.left(table.find(h))).toBe(9)
    expect(table.asleep(table.find(h))).toBeUndefined()
  })
})
