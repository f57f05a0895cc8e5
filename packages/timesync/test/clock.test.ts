import { createRandom, isSdError } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { DisciplinedClock } from '../src/clock/disciplined.js'
import { PhysicalClock, QUARTZ_DRIFT } from '../src/clock/physical.js'

describe('PhysicalClock', () => {
  it('reads offset + (1 + drift) t in whole ticks', () => {
    const clock = new PhysicalClock({ offsetMs: 5, drift: 1e-3, resolutionMs: 10 })
    expect(clock.read(0)).toBe(0)
    expect(clock.read(1000)).toBe(1000) // 5 + 1001 = 1006, floored to 1000
    expect(clock.read(1005)).toBe(1010) // 5 + 1006.005
    expect(new PhysicalClock({ drift: QUARTZ_DRIFT }).read(1_000_000)).toBeCloseTo(1_000_001, 6)
    expect(PhysicalClock.divergence(1000, 1e-6)).toBeCloseTo(0.002, 12)
  })

  it('refuses settings outside their domain with a typed error', () => {
    for (const bad of [
      { drift: 1 },
      { drift: -1 },
      { offsetMs: Number.NaN },
      { resolutionMs: -1 },
    ]) {
      let caught: unknown
      try {
        new PhysicalClock(bad)
      } catch (e) {
        caught = e
      }
      expect(isSdError(caught) && caught.code).toBe('ERR_INVALID_ARGUMENT')
    }
  })
})

describe('DisciplinedClock: the texts linear compensation', () => {
  it('slews: a = (T - Rl) / N, b = Rl - (1 + a) h, and S = T + N after N ticks', () => {
    const clock = new DisciplinedClock({ maxSlewRate: 0.01 })
    const h = 1000
    const rl = clock.read(h) // 1000: before any correction S is H
    const correction = clock.adjust(h, 5) // the real time is T = 1005
    expect(correction.kind).toBe('slew')
    expect(correction.ticks).toBeCloseTo(500, 9) // 5 ms at 1 %
    const n = correction.ticks
    expect(correction.a).toBeCloseTo((rl + 5 - rl) / n, 12)
    expect(correction.b).toBeCloseTo(rl - (1 + correction.a) * h, 9)
    // Halfway, S = (1 + a) H + b; at h + N it has caught up with T + N; then it runs at H's rate.
    expect(clock.read(h + 250)).toBeCloseTo((1 + correction.a) * (h + 250) + correction.b, 9)
    expect(clock.read(h + n)).toBeCloseTo(rl + 5 + n, 9)
    expect(clock.read(h + n + 100)).toBeCloseTo(rl + 5 + n + 100, 9)
    expect(clock.slewing(h + n + 1)).toBe(false)
  })

  it('steps a large error forward at once, and only slews one backwards', () => {
    const clock = new DisciplinedClock({ stepThresholdMs: 100, maxSlewRate: 0.1 })
    expect(clock.adjust(0, 500).kind).toBe('step')
    expect(clock.read(0)).toBe(500)
    const back = clock.adjust(10, -1000)
    expect(back.kind).toBe('slew')
    expect(back.ticks).toBeCloseTo(10_000, 6)
    expect(clock.read(11)).toBeGreaterThan(clock.read(10) - 1e-9)
    expect(clock.read(10 + 10_000)).toBeCloseTo(510 - 1000 + 10_000, 6)
  })

  it('never goes backwards, whatever the corrections (many seeds)', () => {
    forSeeds(seedList(200), (seed) => {
      const random = createRandom(`discipline/${seed}`).next
      const clock = new DisciplinedClock({
        stepThresholdMs: random() * 200,
        maxSlewRate: 0.001 + random() * 0.5,
      })
      let h = random() * 1e6
      let last = clock.read(h)
      for (let i = 0; i < 300; i++) {
        h += random() * 50
        if (random() < 0.2) clock.adjust(h, (random() - 0.5) * 1000)
        const reading = clock.read(h)
        expect(reading).toBeGreaterThanOrEqual(last)
        last = reading
      }
    })
  })

  it('rejects a policy outside its domain', () => {
    expect(() => new DisciplinedClock({ maxSlewRate: 0 })).toThrow(/maxSlewRate/)
    expect(() => new DisciplinedClock({ maxSlewRate: 1 })).toThrow(/maxSlewRate/)
    expect(() => new DisciplinedClock({ stepThresholdMs: -1 })).toThrow(/stepThresholdMs/)
    expect(() => new DisciplinedClock().adjust(0, Number.NaN)).toThrow(/offsetMs/)
  })
})
