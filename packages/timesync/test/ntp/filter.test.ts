import { describe, expect, it } from 'vitest'
import { ClockFilter } from '../../src/ntp/filter.js'
import { FREQUENCY_TOLERANCE } from '../../src/ntp/on-wire.js'

describe('the clock filter', () => {
  it('keeps the last 8 samples and picks the least delay among them', () => {
    const filter = new ClockFilter<{ offsetMs: number; delayMs: number; n: number }>()
    // Sample 0 has the least delay of all, but 10 more samples push it out.
    const delays = [0.1, 5, 4, 9, 3, 8, 2.5, 7, 6, 2, 9.5]
    for (const [n, delayMs] of delays.entries()) filter.add({ offsetMs: n * 10, delayMs, n })
    expect(filter.count).toBe(8)
    expect(filter.samples.map((s) => s.n)).toEqual([3, 4, 5, 6, 7, 8, 9, 10])
    expect(filter.best?.n).toBe(9)
    expect(filter.offsetMs).toBe(90)
    expect(filter.delayMs).toBe(2)
  })

  it('of equal delays, the most recent wins', () => {
    const filter = new ClockFilter()
    filter.add({ offsetMs: 1, delayMs: 3 })
    filter.add({ offsetMs: 2, delayMs: 3 })
    expect(filter.offsetMs).toBe(2)
  })

  it('jitter is the RMS of the other offsets minus the best one', () => {
    const filter = new ClockFilter()
    expect(filter.jitterMs).toBe(0)
    expect(filter.best).toBeUndefined()
    filter.add({ offsetMs: 10, delayMs: 1 })
    expect(filter.jitterMs).toBe(0)
    filter.add({ offsetMs: 13, delayMs: 2 })
    filter.add({ offsetMs: 6, delayMs: 3 })
    // Differences to the best (10): 3 and -4; sqrt((9 + 16) / 2).
    expect(filter.jitterMs).toBeCloseTo(Math.sqrt(12.5), 12)
  })

  it('a smaller filter, and bad samples refused', () => {
    const filter = new ClockFilter(2)
    for (const delayMs of [1, 2, 3]) filter.add({ offsetMs: 0, delayMs })
    expect(filter.delayMs).toBe(2)
    expect(() => new ClockFilter(0)).toThrow(/1 sample/)
    expect(() => filter.add({ offsetMs: Number.NaN, delayMs: 1 })).toThrow(/finite/)
    expect(() => filter.add({ offsetMs: 0, delayMs: -1 })).toThrow(/>= 0/)
  })

  it('ages samples at PHI per ms: the dispersion grows, and an old short trip loses to a fresh one', () => {
    const filter = new ClockFilter<{ offsetMs: number; delayMs: number; measuredAtMs: number }>()
    filter.add({ offsetMs: 1, delayMs: 2, measuredAtMs: 0 })
    const young = filter.bestAt(1_000)!
    const old = filter.bestAt(101_000)!
    expect(young.ageMs).toBe(1_000)
    expect(young.agingMs).toBeCloseTo(FREQUENCY_TOLERANCE * 1_000, 12)
    expect(old.agingMs).toBeCloseTo(FREQUENCY_TOLERANCE * 101_000, 12)
    expect(old.agingMs).toBeGreaterThan(young.agingMs)
    // 0.1 ms more delay costs 0.05 ms of distance, which PHI makes up in 3333 ms of age.
    const within = new ClockFilter<{ offsetMs: number; delayMs: number; measuredAtMs: number }>()
    within.add({ offsetMs: 1, delayMs: 2, measuredAtMs: 0 })
    within.add({ offsetMs: 2, delayMs: 2.1, measuredAtMs: 3_000 })
    expect(within.bestAt(4_000)!.sample.offsetMs).toBe(1)
    filter.add({ offsetMs: 2, delayMs: 2.1, measuredAtMs: 4_000 })
    expect(filter.bestAt(4_000)!.sample.offsetMs).toBe(2)
    // Unaged, the least delay wins whatever its age.
    expect(filter.best!.offsetMs).toBe(1)
    expect(within.best!.offsetMs).toBe(1)
  })

  it('forgets every sample on a flush', () => {
    const filter = new ClockFilter()
    filter.add({ offsetMs: 1, delayMs: 3 })
    filter.add({ offsetMs: 2, delayMs: 4 })
    expect(filter.flush()).toBe(2)
    expect(filter.count).toBe(0)
    expect(filter.bestAt(0)).toBeUndefined()
    expect(() => filter.add({ offsetMs: 1, delayMs: 1, measuredAtMs: Number.NaN })).toThrow(
      /measuredAtMs/,
    )
  })
})
