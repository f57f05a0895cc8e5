import { describe, expect, it } from 'vitest'
import { totalOrder } from './total-order.js'

const SEEDS = Number(process.env.SD_SEEDS ?? 100)

describe('total-order scenario', () => {
  it('every member delivers the same sequence (many seeds)', () => {
    for (let seed = 1; seed <= SEEDS; seed++) {
      const n = 2 + (seed % 6)
      const { violations, result, net } = totalOrder.run({ n, seed, crash: [] })
      expect(violations, `seed ${seed}`).toEqual([])
      expect(result.identical, `seed ${seed}`).toBe(true)
      const sequences = Object.values(result.sequences)
      for (const s of sequences) expect(s).toEqual(sequences[0])
      expect(sequences[0]!.length).toBe(result.broadcasts)
      expect(net.stats.sent).toBe(result.broadcasts * n * (n - 1))
    }
  })

  it('a crashed member blocks delivery but never causes disagreement', () => {
    const { violations, result } = totalOrder.run({ n: 4, seed: 3, crash: [4] })
    expect(violations).toEqual([])
    expect(result.blockedByCrash).toBe(true)
  })
})
