import { describe, expect, it } from 'vitest'
import { type BenchResult, spreadOf, withRatio } from '../src/lib/result.js'

const fig = (over: Partial<BenchResult>): BenchResult => ({
  name: 'x',
  unit: 'ops/s',
  value: 100,
  ...over,
})

describe('per-round ratios of a benchmark figure', () => {
  it('pairs rounds and reports their median, minimum and maximum', () => {
    const r = withRatio(
      fig({
        baseline: { name: 'b', value: 100 },
        rounds: { value: [200, 90, 150], baseline: [100, 100, 100] },
      }),
    )
    expect(r.ratios).toEqual({ perRound: [2, 0.9, 1.5], median: 1.5, min: 0.9, max: 2 })
    expect(r.ratio).toBe(1.5)
  })

  it('turns the ratio over for lower-is-better units', () => {
    const s = spreadOf({ value: [50, 200], baseline: [100, 100] }, true)
    expect(s).toEqual({ perRound: [2, 0.5], median: 1.25, min: 0.5, max: 2 })
  })

  it("keeps a benchmark's own ratio and still adds the spread", () => {
    const r = withRatio(fig({ ratio: 1.1, rounds: { value: [100, 120], baseline: [100, 100] } }))
    expect(r.ratio).toBe(1.1)
    expect(r.ratios?.perRound).toEqual([1, 1.2])
  })

  it('skips rounds where a side measured nothing, and refuses rounds that do not pair', () => {
    expect(spreadOf({ value: [0, 100], baseline: [100, 50] }, false)?.perRound).toEqual([2])
    expect(spreadOf({ value: [0], baseline: [100] }, false)).toBeUndefined()
    expect(() => spreadOf({ value: [1, 2], baseline: [1] }, false)).toThrow(/must pair/)
  })

  it('without rounds, the ratio of the medians as before', () => {
    expect(withRatio(fig({ baseline: { name: 'b', value: 80 } })).ratio).toBe(1.25)
    expect(withRatio(fig({ baseline: { name: 'b', value: 80 } })).ratios).toBeUndefined()
  })
})
