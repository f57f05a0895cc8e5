import { describe, expect, it } from 'vitest'
import { compareRounds, comparisonResult, median } from '../src/lib/against-report.js'
import type { BenchResult } from '../src/lib/result.js'

const fig = (name: string, value: number, lowerIsBetter = false): BenchResult => ({
  name,
  unit: lowerIsBetter ? 'MiB' : 'ops/s',
  value,
  ...(lowerIsBetter ? { lowerIsBetter } : {}),
})
const byName = (...results: BenchResult[]) => new Map(results.map((r) => [r.name, r]))

describe('bench:against comparison', () => {
  it('gives each round its ratio and the median, minimum and maximum of them', () => {
    const { figures, unmatched } = compareRounds([
      { current: byName(fig('a', 200)), baseline: byName(fig('a', 100)) },
      { current: byName(fig('a', 90)), baseline: byName(fig('a', 100)) },
      { current: byName(fig('a', 150)), baseline: byName(fig('a', 100)) },
    ])
    expect(unmatched).toEqual([])
    expect(figures).toHaveLength(1)
    expect(figures[0]!.ratios).toEqual([2, 0.9, 1.5])
    expect(figures[0]!.ratio).toEqual({ median: 1.5, min: 0.9, max: 2 })
  })

  it('turns lower-is-better figures so that above 1 still means this tree is better', () => {
    const { figures } = compareRounds([
      { current: byName(fig('heap', 100, true)), baseline: byName(fig('heap', 200, true)) },
    ])
    expect(figures[0]!.ratio.median).toBe(2)
    expect(figures[0]!.lowerIsBetter).toBe(true)
  })

  it('sets apart a figure one build did not produce in some round instead of comparing it', () => {
    const { figures, unmatched } = compareRounds([
      { current: byName(fig('a', 1), fig('new', 5)), baseline: byName(fig('a', 1)) },
      { current: byName(fig('a', 1), fig('new', 5)), baseline: byName(fig('a', 1), fig('new', 4)) },
    ])
    expect(figures.map((f) => f.name)).toEqual(['a'])
    expect(unmatched).toEqual(['new'])
  })

  it('writes a figure named after the commit, with the rounds and the load average', () => {
    const { figures } = compareRounds([
      { current: byName(fig('a', 120)), baseline: byName(fig('a', 100)) },
      { current: byName(fig('a', 110)), baseline: byName(fig('a', 100)) },
    ])
    const result = comparisonResult(
      figures[0]!,
      { sha: 'fb239e5aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', subject: 'old', ref: 'fb239e5' },
      { start: [1, 1, 1], end: [2, 1, 1] },
    )
    expect(result.name).toBe('a.against-fb239e5')
    expect(result.value).toBe(115)
    expect(result.baseline?.value).toBe(100)
    expect(result.ratio).toBe(1.15)
    expect(result.extra).toMatchObject({ roundRatios: [1.2, 1.1], ratioMin: 1.1, ratioMax: 1.2 })
    expect(result.extra?.loadAverage).toEqual({ start: [1, 1, 1], end: [2, 1, 1] })
  })

  it('takes the median of an even count as the mean of the middle two', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5)
    expect(median([7])).toBe(7)
  })
})
