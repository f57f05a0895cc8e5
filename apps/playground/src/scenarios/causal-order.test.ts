import { describe, expect, it } from 'vitest'
import { causalOrder } from './causal-order.js'

const SEEDS = Number(process.env.SD_SEEDS ?? 100)

describe('causal-order scenario', () => {
  it('never delivers out of causal order and delivers everything to live nodes (many seeds)', () => {
    let held = 0
    for (let seed = 1; seed <= SEEDS; seed++) {
      const n = 2 + (seed % 6)
      const crash = seed % 6 === 0 ? [n] : []
      const { violations, result } = causalOrder.run({ n, seed, crash })
      expect(violations, `seed ${seed}`).toEqual([])
      held += result.heldBack
      const events = result.events
      expect(events.every((e) => e.clock.length === n)).toBe(true)
      expect(events.some((e) => e.type === 'deliver')).toBe(true)
    }
    // Reordering links make the buffer work for real.
    expect(held).toBeGreaterThan(SEEDS / 4)
  })
})
