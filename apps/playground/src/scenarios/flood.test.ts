import { describe, expect, it } from 'vitest'
import { flood } from './flood.js'

const SEEDS = Number(process.env.SD_SEEDS ?? 100)

describe('flood scenario', () => {
  it('never delivers twice, never crosses the partition, and reaches everyone outside it (many seeds)', () => {
    let fullReach = 0
    for (let seed = 1; seed <= SEEDS; seed++) {
      const n = 3 + (seed % 6)
      const crash = seed % 3 === 0 ? [n] : []
      const { violations, result } = flood.run({ n, seed, crash })
      expect(violations, `seed ${seed}`).toEqual([])
      const { reach } = result
      const far = result.partitioned
      for (const node of far)
        expect(reach[1]!.reached, `seed ${seed}: rumour 2 at far node ${node}`).not.toContain(node)
      if (reach[0]!.missed.length === 0 && reach[2]!.missed.length === 0) fullReach++
    }
    // Redundant paths beat 10% loss nearly always.
    expect(fullReach / SEEDS).toBeGreaterThan(0.9)
  })
})
