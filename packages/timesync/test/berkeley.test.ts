import type { SimNetwork } from '@sd/transport'
import { ofType } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { faultTolerantAverage } from '../src/berkeley/average.js'
import { berkeley } from '../src/berkeley/protocol.js'
import { runSync, spread } from './sync/harness.js'

const IDS = [1, 2, 3, 4, 5, 6]
const MAX_DRIFT = 1e-4

describe('fault-tolerant average', () => {
  it('averages the offsets near the median and ignores the rest', () => {
    const avg = faultTolerantAverage(
      [
        { node: 1, offsetMs: 0, uncertaintyMs: 0 },
        { node: 2, offsetMs: 10, uncertaintyMs: 1 },
        { node: 3, offsetMs: -5, uncertaintyMs: 1 },
        { node: 4, offsetMs: 10_000, uncertaintyMs: 1 },
      ],
      50,
    )
    expect(avg.median).toBe(5)
    expect(avg.kept).toEqual([1, 2, 3])
    expect(avg.ignored).toEqual([4])
    expect(avg.averageMs).toBeCloseTo(5 / 3, 12)
  })
})

describe('fault-tolerant average with nothing near the median', () => {
  it('keeps nothing and gives no average', () => {
    const avg = faultTolerantAverage(
      [
        { node: 1, offsetMs: 0, uncertaintyMs: 0 },
        { node: 2, offsetMs: 1000, uncertaintyMs: 1 },
      ],
      50,
    )
    expect(avg).toEqual({ averageMs: undefined, kept: [], ignored: [1, 2], median: 500 })
  })
})

describe('Berkeley', () => {
  it('reports a round whose clocks all lie far from their median as sync-failed, and adjusts nothing', () => {
    // Two machines, the slave's clock 1000 ms ahead: the median is halfway, near neither.
    const run = runSync(
      [1, 2],
      (self, clock) => berkeley({ master: 1, thresholdMs: 50 })(self, clock),
      {
        seed: 1,
        clockOf: (id) => ({ offset: id === 2 ? 1000 : 0, drift: 0 }),
        until: 500,
      },
    )
    const failed = ofType(run.events, 'sync-failed')
    expect(failed).toHaveLength(1)
    expect(failed[0]!.event.reason).toContain('no clock within 50 ms of the median')
    expect(ofType(run.events, 'adjusted')).toEqual([])
  })

  it('shrinks the spread below 2 x the largest half round trip, plus drift since (many seeds)', () => {
    forSeeds(seedList(100), (seed) => {
      const run = runSync(
        IDS,
        (self, clock) => berkeley({ master: 1, thresholdMs: 1000 })(self, clock),
        {
          seed,
          maxOffsetMs: 200,
          maxDrift: MAX_DRIFT,
          spreadMs: 1 + (seed % 15),
          maxSlewRate: 0.05,
          until: 20_000,
        },
      )
      const round = ofType(run.events, 'berkeley-round')[0]!
      const offsets = [...run.specs.values()].map((s) => s.offset)
      const after = spread(run.errors().values())
      const bound = round.event.spreadBoundMs + 2 * MAX_DRIFT * (run.net.now - round.t)
      expect(after).toBeLessThanOrEqual(bound)
      expect(after).toBeLessThan(spread(offsets))
      expect(ofType(run.events, 'adjusted')).toHaveLength(IDS.length)
    })
  })

  /** Clocks 7 ms apart, without drift, 20 ms each way: the round trip hides nothing. */
  const equalDelays = (plan?: (net: SimNetwork) => void) =>
    runSync(IDS, (self, clock) => berkeley({ master: 1 })(self, clock), {
      seed: 1,
      net: { latency: 20 },
      clockOf: (id) => ({ offset: Number(id) * 7, drift: 0 }),
      maxSlewRate: 0.5,
      until: 2000,
      plan,
    })

  it('compensates the round trip: with equal delays both ways the estimates are exact', () => {
    const run = equalDelays()
    // The average of 7, 14, ..., 42 is 24.5: every clock ends there, to rounding.
    for (const [, error] of run.errors()) expect(error).toBeCloseTo(24.5, 6)
  })

  it('times its round trips on the monotonic clock: a step of the master wall clock mid-round bends no estimate', () => {
    // The poll leaves at 0 and the answers come back at 40: the master's clock steps between.
    const run = equalDelays((net) => net.at(10, () => net.stepClock(1, 300)))
    // The master's software clock reads hardware + 300 after the step; the others are brought
    // to the average of every clock as read in one instant, exactly: they all agree.
    expect(spread(run.errors().values())).toBeLessThan(1e-6)
  })

  it('leaves a clock far off out of the average, and still corrects it', () => {
    const run = runSync(
      IDS,
      (self, clock) => berkeley({ master: 1, thresholdMs: 50 })(self, clock),
      {
        seed: 4,
        clockOf: (id) => ({ offset: id === 6 ? 10_000 : Number(id) * 2, drift: 0 }),
        maxSlewRate: 0.5,
        until: 60_000,
      },
    )
    const round = ofType(run.events, 'berkeley-round')[0]!.event
    expect(round.ignored).toEqual([6])
    // The group's time is the average of the sane clocks (2..10 ms), not dragged 10 s ahead.
    const errors = run.errors()
    for (const [, error] of errors) expect(Math.abs(error - 6)).toBeLessThan(10)
  })

  it('adjusts only the machines that answered; a crashed one is reported silent', () => {
    const run = runSync(IDS, (self, clock) => berkeley({ master: 1 })(self, clock), {
      seed: 2,
      until: 1000,
      plan: (net) => net.crash(3),
    })
    const round = ofType(run.events, 'berkeley-round')[0]!.event
    expect(round.silent).toEqual([3])
    const adjustedNodes = ofType(run.events, 'adjusted').map((e) => e.node)
    expect(adjustedNodes.sort()).toEqual([1, 2, 4, 5, 6])
  })

  it('follows a new master, and ignores adjustments from the old one', () => {
    const run = runSync(IDS, (self, clock) => berkeley({ master: 1, periodMs: 200 })(self, clock), {
      seed: 5,
      until: 1000,
      plan: (net) => {
        for (const id of IDS) net.request(id, { type: 'set-master', master: 4 }, 300)
      },
    })
    const rounds = ofType(run.events, 'berkeley-round')
    expect(rounds.filter((r) => r.t < 300).every((r) => r.node === 1)).toBe(true)
    expect(rounds.filter((r) => r.t > 310).every((r) => r.node === 4)).toBe(true)
    expect(rounds.filter((r) => r.node === 4).length).toBeGreaterThanOrEqual(3)
  })

  it('reports a round nobody answered as sync-failed', () => {
    const run = runSync([1, 2], (self, clock) => berkeley({ master: 1 })(self, clock), {
      seed: 1,
      until: 500,
      plan: (net) => net.crash(2),
    })
    expect(run.events.map((e) => e.event.type)).toEqual(['sync-failed'])
  })
})
