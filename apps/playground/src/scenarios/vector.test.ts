import { describe, expect, it } from 'vitest'
import { vector } from './vector.js'

const SEEDS = Number(process.env.SD_SEEDS ?? 100)

describe('vector scenario', () => {
  it('strong clock condition, concurrency test, #(e) and cut tests agree with the ground truth', () => {
    let consistent = 0
    let inconsistent = 0
    for (let seed = 1; seed <= SEEDS; seed++) {
      const n = 2 + (seed % 5)
      const crash = seed % 7 === 0 ? [1] : []
      const { violations, result } = vector.run({ n, seed, crash })
      expect(violations, `seed ${seed}`).toEqual([])
      const events = result.events
      for (const e of events) {
        expect(e.vector.length).toBe(n)
        expect(e.predecessors).toBe(e.vector.reduce((a, b) => a + b, 0) - 1)
      }
      for (const c of result.cuts) {
        if (c.consistent) consistent++
        else inconsistent++
      }
    }
    // Both outcomes occur, so the cut check is exercised both ways.
    expect(consistent).toBeGreaterThan(0)
    expect(inconsistent).toBeGreaterThan(0)
  })

  it('draws vector timestamps on the diagram', () => {
    const run = vector.run({ n: 3, seed: 2, crash: [] })
    const labels = run.net.trace.map((e) => run.annotate!(e)).filter((l) => l !== undefined)
    expect(labels.length).toBe(run.result.events.length)
    expect(labels.every((l) => /\[\d+,\d+,\d+\]$/.test(l))).toBe(true)
  })
})
