import { createRandom } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../../test-support/seeds.js'
import { type SourceEstimate, selectSources } from '../../src/ntp/select.js'

const src = (id: string, offsetMs: number, rootDistanceMs: number) => ({
  id,
  offsetMs,
  rootDistanceMs,
})

describe('source selection (Marzullo)', () => {
  it('rejects a falseticker 500 ms off among 4 servers; the other three agree within a few ms', () => {
    const result = selectSources([
      src('a', 1, 5),
      src('b', 2, 5),
      src('c', 3, 5),
      src('bad', 500, 5),
    ])
    if (!result.majority) throw new Error('expected a majority')
    expect(result.truechimers.map((s) => s.id)).toEqual(['a', 'b', 'c'])
    expect(result.falsetickers.map((s) => s.id)).toEqual(['bad'])
    expect(result.falsetickersAllowed).toBe(1)
    // Three intervals share [-2, 6]: from the third lower end to the third upper end.
    expect(result.intersection).toEqual({ lowMs: -2, highMs: 6 })
    expect(result.offsetMs).toBe(2)
  })

  it('says so when no majority agrees', () => {
    const result = selectSources([
      src('a', 0, 1),
      src('b', 0.5, 1),
      src('c', 100, 1),
      src('d', 100.5, 1),
    ])
    expect(result).toEqual({
      majority: false,
      reason: 'no-majority',
      sources: 4,
      largestAgreement: 2,
    })
    expect(selectSources([src('a', 0, 1), src('b', 10, 1)])).toMatchObject({
      majority: false,
      largestAgreement: 1,
    })
    expect(selectSources([])).toEqual({
      majority: false,
      reason: 'no-sources',
      sources: 0,
      largestAgreement: 0,
    })
  })

  it('all agree: no falseticker; intervals that only touch still agree', () => {
    const result = selectSources([src('a', 0, 1), src('b', 2, 1)])
    expect(result).toMatchObject({
      majority: true,
      falsetickers: [],
      falsetickersAllowed: 0,
      intersection: { lowMs: 1, highMs: 1 },
    })
    expect(selectSources([src('only', 42, 3)])).toMatchObject({ majority: true, offsetMs: 42 })
  })

  it('combines truechimers weighted by 1/λ: the tighter bound counts more', () => {
    const result = selectSources([src('tight', 0, 1), src('loose', 3, 3)])
    if (!result.majority) throw new Error('expected a majority')
    // Weights 1 and 1/3: (0 * 1 + 3 / 3) / (4 / 3) = 0.75.
    expect(result.offsetMs).toBeCloseTo(0.75, 12)
    // A zero distance weighs as 1e-6 ms, not infinitely: the other still counts, a little.
    const exact = selectSources([src('exact', 5, 0), src('b', 6, 2)])
    expect(exact.majority && exact.offsetMs).toBeCloseTo(5, 5)
  })

  it('refuses a negative or non-finite root distance', () => {
    expect(() => selectSources([src('a', 0, -1)])).toThrow(/root distance/)
    expect(() => selectSources([src('a', Number.NaN, 1)])).toThrow(/finite/)
  })

  it('a correct majority is always found, and lone falsetickers far off always rejected (seeds)', () => {
    forSeeds(seedList(300), (seed) => {
      const random = createRandom(seed)
      const n = random.int(1, 9)
      const bad = random.int(0, Math.ceil(n / 2) - 1)
      const sources: Array<SourceEstimate & { good: boolean }> = []
      // Truechimers: intervals around offsets within 5 ms of the truth (0) that contain it.
      for (let i = 0; i < n - bad; i++) {
        const offsetMs = (random.next() * 2 - 1) * 5
        sources.push({
          offsetMs,
          rootDistanceMs: Math.abs(offsetMs) + random.next() * 5,
          good: true,
        })
      }
      // Falsetickers: 100 ms or more off, each on its own side and distance.
      for (let i = 0; i < bad; i++) {
        const offsetMs = (random.next() < 0.5 ? -1 : 1) * (100 + 200 * i + random.next() * 50)
        sources.push({ offsetMs, rootDistanceMs: random.next() * 10, good: false })
      }
      const result = selectSources(sources)
      if (!result.majority) throw new Error(`no majority among ${n} with ${bad} bad`)
      expect(result.truechimers.every((s) => s.good)).toBe(true)
      expect(result.falsetickers.every((s) => !s.good)).toBe(true)
      expect(result.intersection.lowMs).toBeLessThanOrEqual(0)
      expect(result.intersection.highMs).toBeGreaterThanOrEqual(0)
      expect(Math.abs(result.offsetMs)).toBeLessThanOrEqual(5)
    })
  })
})
