import { createRandom, isSdError } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../../test-support/seeds.js'
import { ClockUnsynchronizedError } from '../../src/errors.js'
import { IntervalClock, type IntervalClockOptions } from '../../src/interval/index.js'
import { SimulatedMachine } from './simulated-clocks.js'

/** Float rounding only (as checkClockSync's epsilon). */
const EPSILON = 1e-9

interface RunStats {
  reads: number
  synchronizedReads: number
  misses: number
  steps: number
  statuses: Set<string>
}

/**
 * One machine over simulated true time: its monotonic clock's rate wanders within `driftWithin`
 * of true, syncs come with random errors within their stated bound (some lost), and the wall clock
 * is sometimes stepped. Every read is checked against true time.
 */
function run(
  seed: number,
  driftWithin: number,
  options: IntervalClockOptions,
  atBound = false,
): RunStats {
  const random = createRandom(`interval/${seed}`)
  const uniform = (a: number, b: number) => a + (b - a) * random.next()
  // At the bound: the rate error is exactly ±ρ, where a bound of ρ (1 + ρ) instead of ρ / (1 − ρ) fails.
  const drift = () =>
    atBound ? (random.next() < 0.5 ? -1 : 1) * driftWithin : uniform(-driftWithin, driftWithin)
  const machine = new SimulatedMachine({
    drift: drift(),
    wallOffsetMs: uniform(-1e6, 1e6),
    startMs: 1.7e12 + uniform(0, 1e9),
  })
  const clock = new IntervalClock(options)
  const stats: RunStats = {
    reads: 0,
    synchronizedReads: 0,
    misses: 0,
    steps: 0,
    statuses: new Set(),
  }
  const lossRate = uniform(0, 0.5)
  for (let i = 0; i < 300; i++) {
    machine.advance(uniform(0, 20_000))
    const roll = random.next()
    if (roll < 0.1) machine.setDrift(drift())
    if (roll > 0.97) machine.stepWall((random.next() < 0.5 ? -1 : 1) * uniform(10, 5_000))
    if (random.next() < 0.25 && random.next() >= lossRate) {
      // A sync measured now, handed over a little later (the answer's processing).
      const errorBoundMs = uniform(0, 50)
      const sample = {
        monotonicMs: machine.monotonic(),
        timeMs:
          machine.trueMs +
          (atBound
            ? (random.next() < 0.5 ? -1 : 1) * errorBoundMs
            : uniform(-errorBoundMs, errorBoundMs)),
        errorBoundMs,
      }
      machine.advance(uniform(0, 5))
      clock.sync(sample, machine.reading())
    }
    const interval = clock.read(machine.reading())
    stats.reads++
    stats.statuses.add(interval.status)
    if (!interval.synchronized) continue
    stats.synchronizedReads++
    expect(interval.earliest).toBeLessThanOrEqual(interval.latest)
    const t = machine.trueMs
    if (t < interval.earliest - EPSILON || t > interval.latest + EPSILON) stats.misses++
  }
  stats.steps = clock.steps
  return stats
}

describe('IntervalClock', () => {
  it('holds true time in [earliest, latest] at every read while drift stays within the bound', () => {
    let synchronizedReads = 0
    const statuses = new Set<string>()
    forSeeds(seedList(200), (seed) => {
      const maxDriftPpm = [1, 15, 200, 1000, 10_000][seed % 5] as number
      // Half the seeds right at the bound (rate errors of exactly ±ρ, sync errors of exactly their
      // bound): the bound is a closed one.
      const stats = run(
        seed,
        maxDriftPpm / 1e6,
        { maxDriftPpm, maxSyncAgeMs: 200_000 },
        seed % 2 === 0,
      )
      expect(stats.misses).toBe(0)
      synchronizedReads += stats.synchronizedReads
      for (const s of stats.statuses) statuses.add(s)
    })
    expect(synchronizedReads).toBeGreaterThan(10_000)
    // Every state was visited: lost syncs expire, steps invalidate, and syncs bring it back.
    expect([...statuses].sort()).toEqual(['expired', 'never-synced', 'stepped', 'synchronized'])
  })

  it('misses true time once the drift exceeds the bound (the assumption is what makes it hold)', () => {
    let misses = 0
    forSeeds(seedList(40), (seed) => {
      misses += run(seed, 0.01, { maxDriftPpm: 10, maxSyncAgeMs: 200_000 }).misses
    })
    expect(misses).toBeGreaterThan(0)
  })

  it('grows the bound at ρ per ms since the sync, from the sync’s own bound', () => {
    const clock = new IntervalClock({ maxDriftPpm: 100 })
    clock.sync({ monotonicMs: 0, timeMs: 5_000, errorBoundMs: 2 }, { monotonicMs: 0, wallMs: 0 })
    const at0 = clock.readSynchronized({ monotonicMs: 0, wallMs: 0 })
    expect([at0.earliest, at0.latest, at0.errorBoundMs]).toEqual([4_998, 5_002, 2])
    const later = clock.readSynchronized({ monotonicMs: 10_000, wallMs: 10_000 })
    expect(later.earliest).toBeCloseTo(4_998 + 10_000 / 1.0001, 9)
    expect(later.latest).toBeCloseTo(5_002 + 10_000 / 0.9999, 9)
    expect(later.errorBoundMs).toBeGreaterThan(2 + 1)
    expect(later.errorBoundMs).toBeLessThan(2 + 1.0001)
    expect(later.sinceSyncMs).toBe(10_000)
  })

  it('detects a step of the wall clock, forward or back, and is unsynchronized until the next sync', () => {
    forSeeds(seedList(50), (seed) => {
      const random = createRandom(`step/${seed}`)
      const machine = new SimulatedMachine({ drift: (random.next() - 0.5) * 4e-4 })
      const clock = new IntervalClock({ maxDriftPpm: 200, stepToleranceMs: 5 })
      const sync = () =>
        clock.sync(
          { monotonicMs: machine.monotonic(), timeMs: machine.trueMs, errorBoundMs: 1 },
          machine.reading(),
        )
      sync()
      machine.advance(1_000)
      expect(clock.read(machine.reading()).status).toBe('synchronized')
      // Wobble below the tolerance (Date.now's truncation) is not a step.
      machine.stepWall(random.next() * 4)
      machine.advance(100)
      expect(clock.read(machine.reading()).status).toBe('synchronized')
      const delta = (random.next() < 0.5 ? -1 : 1) * (6 + random.next() * 10_000)
      machine.stepWall(delta)
      machine.advance(random.next() * 1_000)
      const after = clock.read(machine.reading())
      expect(after.status).toBe('stepped')
      expect([after.earliest, after.latest]).toEqual([-Infinity, Infinity])
      expect(clock.steps).toBe(1)
      expect(clock.lastStep?.deltaMs).toBeCloseTo(delta, 6)
      machine.advance(100)
      expect(clock.read(machine.reading()).status).toBe('stepped')
      sync()
      expect(clock.read(machine.reading()).status).toBe('synchronized')
    })
  })

  it('takes a suspend (monotonic clock standing still) for a step: the bound would not hold', () => {
    const machine = new SimulatedMachine()
    const clock = new IntervalClock({ maxDriftPpm: 200 })
    clock.sync(
      { monotonicMs: machine.monotonic(), timeMs: machine.trueMs, errorBoundMs: 1 },
      machine.reading(),
    )
    machine.suspend(60_000)
    // The wall clock is set right on resume (as NTP or the RTC would): +60 s against monotonic.
    machine.stepWall(60_000)
    const interval = clock.read(machine.reading())
    expect(interval.status).toBe('stepped')
  })

  it('is unsynchronized once the last sync is older than maxSyncAgeMs, and before any sync', () => {
    const clock = new IntervalClock({ maxSyncAgeMs: 1_000 })
    expect(clock.read({ monotonicMs: 0, wallMs: 0 }).status).toBe('never-synced')
    clock.sync({ monotonicMs: 0, timeMs: 0, errorBoundMs: 0 }, { monotonicMs: 0, wallMs: 0 })
    expect(clock.read({ monotonicMs: 1_000, wallMs: 1_000 }).status).toBe('synchronized')
    const old = clock.read({ monotonicMs: 1_000.5, wallMs: 1_000.5 })
    expect(old.status).toBe('expired')
    expect(old.synchronized).toBe(false)
    expect(old.wallMs).toBe(1_000.5)
    let caught: unknown
    try {
      clock.readSynchronized({ monotonicMs: 2_000, wallMs: 2_000 })
    } catch (e) {
      caught = e
    }
    expect(caught).toBeInstanceOf(ClockUnsynchronizedError)
    expect((caught as ClockUnsynchronizedError).status).toBe('expired')
    expect((caught as ClockUnsynchronizedError).code).toBe('ERR_CLOCK_UNSYNCHRONIZED')
  })

  it('carries an offset measurement to its end with the drift over the query, and refuses one across a step', () => {
    const clock = new IntervalClock({ maxDriftPpm: 100 })
    const before = { monotonicMs: 0, wallMs: 1_000 }
    const after = { monotonicMs: 1_000, wallMs: 2_000 }
    expect(clock.syncFromOffset({ offsetMs: 250, errorBoundMs: 3 }, before, after)).toBe(true)
    const i = clock.readSynchronized(after)
    expect((i.earliest + i.latest) / 2).toBeCloseTo(2_250, 9)
    expect(i.errorBoundMs).toBeCloseTo(3 + (1e-4 / (1 - 1e-4)) * 1_000, 9)
    const stepped = { monotonicMs: 2_000, wallMs: 3_000 + 500 }
    expect(clock.syncFromOffset({ offsetMs: 0, errorBoundMs: 1 }, after, stepped)).toBe(false)
    expect(clock.read(stepped).status).toBe('stepped')
    expect(clock.steps).toBe(1)
  })

  it('refuses bad settings, samples and readings with typed errors', () => {
    const invalid = (f: () => unknown) => {
      let caught: unknown
      try {
        f()
      } catch (e) {
        caught = e
      }
      expect(isSdError(caught) && caught.code).toBe('ERR_INVALID_ARGUMENT')
    }
    for (const bad of [
      { maxDriftPpm: -1 },
      { maxDriftPpm: 1e6 },
      { maxDriftPpm: Number.NaN },
      { maxSyncAgeMs: 0 },
      { maxSyncAgeMs: Number.NaN },
      { stepToleranceMs: -1 },
      { stepToleranceMs: Infinity },
    ])
      invalid(() => new IntervalClock(bad))
    const clock = new IntervalClock()
    const r = { monotonicMs: 10, wallMs: 10 }
    invalid(() => clock.sync({ monotonicMs: 0, timeMs: 0, errorBoundMs: -1 }, r))
    invalid(() => clock.sync({ monotonicMs: 0, timeMs: Number.NaN, errorBoundMs: 0 }, r))
    invalid(() => clock.sync({ monotonicMs: 0, timeMs: 0, errorBoundMs: Infinity }, r))
    invalid(() => clock.sync({ monotonicMs: 11, timeMs: 0, errorBoundMs: 0 }, r))
    invalid(() => clock.read({ monotonicMs: Number.NaN, wallMs: 0 }))
    clock.read(r)
    invalid(() => clock.read({ monotonicMs: 9, wallMs: 10 }))
    invalid(() =>
      clock.syncFromOffset({ offsetMs: 0, errorBoundMs: 0 }, r, { monotonicMs: 5, wallMs: 5 }),
    )
  })
})
