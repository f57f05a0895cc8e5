import { describe, expect, it } from 'vitest'
import { logViolationProbability, violationProbability } from '../src/quorum/probability.js'

const invalid = expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' })

describe('violationProbability: P_v = sum_{k=2m-n}^{n} C(m,k) p^k (1-p)^(m-k)', () => {
  it("the texts' example: p = 0.0001, n = 32, m = 0.75 n = 24 gives P_v < 1e-40", () => {
    const pv = violationProbability(32, 24, 0.0001)
    expect(pv).toBeLessThan(1e-40)
    expect(pv).toBeGreaterThan(0)
    // k runs 16..24; the first term dominates: C(24,16) = 735471, so about 735471e-64 * 0.9999^8.
    expect(pv / (735471e-64 * 0.9999 ** 8)).toBeCloseTo(1, 3)
  })

  it('small cases, by hand', () => {
    // n=3, m=2, p=1/2: k = 1..2 (C(2,3) = 0): 2(.5)(.5) + 1(.25) = 0.75
    expect(violationProbability(3, 2, 0.5)).toBeCloseTo(0.75, 12)
    // n=3, m=3: k = 3 only: p^3; p = 0.1 gives 0.001
    expect(violationProbability(3, 3, 0.1)).toBeCloseTo(0.001, 14)
    // n=5, m=3, p=0.1: k = 1..3: 3(.1)(.81) + 3(.01)(.9) + .001 = .243 + .027 + .001 = .271
    // (= 1 - 0.9^3: with k starting at 1 it is "any of the m restarts")
    expect(violationProbability(5, 3, 0.1)).toBeCloseTo(0.271, 12)
    // n=4, m=3, p=0.2: k = 2..3: 3(.04)(.8) + .008 = .096 + .008 = .104
    expect(violationProbability(4, 3, 0.2)).toBeCloseTo(0.104, 12)
    // n=7, m=4 (the texts' scenario), p=0.5: k = 1..4: 1 - 0.5^4 = 0.9375
    expect(violationProbability(7, 4, 0.5)).toBeCloseTo(0.9375, 12)
    // n=1, m=1: k = 1: p
    expect(violationProbability(1, 1, 0.3)).toBeCloseTo(0.3, 14)
  })

  it('is 0 when p = 0 and 1 when p = 1', () => {
    for (const [n, m] of [
      [1, 1],
      [5, 3],
      [32, 24],
      [1000, 501],
    ] as const) {
      expect(violationProbability(n, m, 0)).toBe(0)
      expect(logViolationProbability(n, m, 0)).toBe(Number.NEGATIVE_INFINITY)
      expect(violationProbability(n, m, 1)).toBe(1)
    }
  })

  it('grows with p, and stays within [0, 1]', () => {
    const ps = Array.from({ length: 101 }, (_, i) => i / 100)
    for (let n = 1; n <= 40; n++) {
      for (let m = Math.floor(n / 2) + 1; m <= n; m++) {
        let previous = -1
        for (const p of ps) {
          const pv = violationProbability(n, m, p)
          expect(pv).toBeGreaterThanOrEqual(0)
          expect(pv).toBeLessThanOrEqual(1)
          // non-strict, with a rounding allowance: near p = 1 the sum is 1 to the last bit
          expect(pv).toBeGreaterThanOrEqual(previous * (1 - 1e-12))
          previous = pv
        }
      }
    }
  })

  it('shrinks as the quorum grows (larger intersections must all restart)', () => {
    for (let m = 17; m < 32; m++) {
      expect(violationProbability(32, m + 1, 0.01)).toBeLessThan(violationProbability(32, m, 0.01))
    }
  })

  it('is stable for large n: matches a closed form, and underflows only in P_v, not in its log', () => {
    // n = 2000, m = 1001: k = 2..1001 covers everything but k = 0 and 1, so
    // P_v = 1 - (1-p)^m - m p (1-p)^(m-1).
    const p = 1e-3
    const closed = 1 - (1 - p) ** 1001 - 1001 * p * (1 - p) ** 1000
    expect(violationProbability(2000, 1001, p)).toBeCloseTo(closed, 12)
    // n = 1e6, m = 750000, p = 1e-4: far below the smallest double, yet its log is finite.
    const log = logViolationProbability(1_000_000, 750_000, 1e-4)
    expect(Number.isFinite(log)).toBe(true)
    expect(log).toBeLessThan(-1e6)
    expect(violationProbability(1_000_000, 750_000, 1e-4)).toBe(0)
    // A majority of 100001 with p = 1/2 intersects in 1: nearly certain.
    expect(violationProbability(100_001, 50_001, 0.5)).toBeCloseTo(1, 12)
  })

  it('refuses arguments outside their domain, with a typed error', () => {
    expect(() => violationProbability(0, 1, 0.1)).toThrow(invalid)
    expect(() => violationProbability(2.5, 2, 0.1)).toThrow(invalid)
    expect(() => violationProbability(4, 2, 0.1)).toThrow(invalid) // m = n/2 is no quorum
    expect(() => violationProbability(4, 5, 0.1)).toThrow(invalid)
    expect(() => violationProbability(4, 3.5, 0.1)).toThrow(invalid)
    expect(() => violationProbability(4, 3, -0.1)).toThrow(invalid)
    expect(() => violationProbability(4, 3, 1.1)).toThrow(invalid)
    expect(() => violationProbability(4, 3, Number.NaN)).toThrow(invalid)
  })
})
