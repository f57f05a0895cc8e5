import { describe, expect, it } from 'vitest'
import { ClockOverflowError, ClockSkewError, InvalidClockArgumentError } from './errors.js'
import { compareHlc, HybridLogicalClock } from './hlc.js'

describe('HybridLogicalClock', () => {
  it('follows physical time and counts events within one millisecond', () => {
    let pt = 100.7
    const hlc = new HybridLogicalClock({ now: () => pt })
    expect(hlc.now()).toEqual({ wall: 100, counter: 0 })
    expect(hlc.now()).toEqual({ wall: 100, counter: 1 })
    pt = 105
    expect(hlc.send()).toEqual({ wall: 105, counter: 0 })
    pt = 90 // the physical clock stepped back: the HLC does not
    expect(hlc.now()).toEqual({ wall: 105, counter: 1 })
    expect(hlc.last).toEqual({ wall: 105, counter: 1 })
  })

  it('on receipt takes the largest wall time and the counter of whoever had it', () => {
    let pt = 100
    const hlc = new HybridLogicalClock({ now: () => pt, maxSkewMs: 50 })
    hlc.now() // (100, 0)
    expect(hlc.receive({ wall: 120, counter: 4 })).toEqual({ wall: 120, counter: 5 })
    expect(hlc.receive({ wall: 120, counter: 9 })).toEqual({ wall: 120, counter: 10 })
    expect(hlc.receive({ wall: 110, counter: 30 })).toEqual({ wall: 120, counter: 11 })
    pt = 200
    expect(hlc.receive({ wall: 150, counter: 30 })).toEqual({ wall: 200, counter: 0 })
  })

  it('refuses a remote time beyond maxSkewMs with a typed error and leaves the clock unchanged', () => {
    const hlc = new HybridLogicalClock({ now: () => 1000, maxSkewMs: 100 })
    hlc.now()
    let error: unknown
    try {
      hlc.receive({ wall: 1101, counter: 0 })
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(ClockSkewError)
    expect(error).toMatchObject({
      code: 'ERR_CLOCK_SKEW',
      remote: 1101,
      physical: 1000,
      message: expect.stringMatching(/101 ms ahead/),
    })
    expect(hlc.last).toEqual({ wall: 1000, counter: 0 })
    expect(hlc.receive({ wall: 1100, counter: 0 })).toEqual({ wall: 1100, counter: 1 })
    const lax = new HybridLogicalClock({ now: () => 0, maxSkewMs: Number.POSITIVE_INFINITY })
    expect(lax.receive({ wall: 10 ** 9, counter: 0 }).wall).toBe(10 ** 9)
  })

  it('reports counter overflow, bad physical readings and bad options', () => {
    const hlc = new HybridLogicalClock({ now: () => 5, maxCounter: 2 })
    hlc.now()
    hlc.now()
    hlc.now()
    expect(() => hlc.now()).toThrow(ClockOverflowError)
    expect(() => new HybridLogicalClock({ now: () => Number.NaN }).now()).toThrow(
      /physical clock returned NaN/,
    )
    expect(() => new HybridLogicalClock({ now: () => 1, maxSkewMs: -1 })).toThrow(
      InvalidClockArgumentError,
    )
    expect(() =>
      new HybridLogicalClock({ now: () => 1 }).receive({ wall: -1, counter: 0 }),
    ).toThrow(InvalidClockArgumentError)
  })

  it('orders timestamps by (wall, counter)', () => {
    expect(compareHlc({ wall: 1, counter: 9 }, { wall: 2, counter: 0 })).toBeLessThan(0)
    expect(compareHlc({ wall: 2, counter: 1 }, { wall: 2, counter: 0 })).toBeGreaterThan(0)
    expect(compareHlc({ wall: 2, counter: 1 }, { wall: 2, counter: 1 })).toBe(0)
  })
})
