import { ofType } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { checkClockSync } from '../src/check.js'
import { cristian } from '../src/cristian/protocol.js'
import { runSync } from './sync/harness.js'

const SERVER = 0
const IDS = [0, 1, 2, 3, 4]

describe('Cristian', () => {
  it('never errs by more than its reported bound (many seeds, drifting clocks, asymmetric delays)', () => {
    let checked = 0
    forSeeds(seedList(150), (seed) => {
      const handlingMs = seed % 3 === 0 ? 0 : seed % 7
      // Every other seed, clocks that tick in whole milliseconds (the bound adds two ticks).
      const resolution = seed % 2
      const run = runSync(
        IDS,
        (self, clock) =>
          cristian({
            server: SERVER,
            samples: 1 + (seed % 6),
            handlingMs,
            periodMs: 500,
            resolutionMs: resolution,
          })(self, clock),
        {
          seed,
          // The server is the reference (a UTC receiver): its clock is true time.
          clockOf: (id, random) =>
            id === SERVER
              ? { offset: 0, drift: 0, resolution }
              : {
                  offset: (2 * random() - 1) * 300,
                  drift: (2 * random() - 1) * 1e-4,
                  resolution,
                },
          spreadMs: 2 + (seed % 20),
          until: 2000,
        },
      )
      const adjusted = ofType(run.events, 'adjusted')
      expect(adjusted.length).toBeGreaterThanOrEqual(4 * 3)
      for (const { t, event } of adjusted) {
        const target = event.readingMs + event.offsetMs
        expect(Math.abs(target - t)).toBeLessThanOrEqual(event.errorBoundMs)
        checked++
      }
    })
    expect(checked).toBeGreaterThan(1000)
  })

  it('keeps its bound when client wall clocks step, forward and back, even mid-exchange', () => {
    // Round trips are timed on the monotonic clock: on the wall clock, a step while a request is
    // in flight would count as round-trip time (or make it negative).
    let checked = 0
    forSeeds(seedList(60), (seed) => {
      const run = runSync(
        IDS,
        (self, clock) => cristian({ server: SERVER, samples: 1, periodMs: 40 })(self, clock),
        {
          seed,
          clockOf: (id, random) =>
            id === SERVER
              ? { offset: 0, drift: 0 }
              : { offset: 0, drift: (2 * random() - 1) * 1e-4 },
          spreadMs: 10,
          until: 1500,
          plan: (net) => {
            for (let t = 13 + (seed % 7); t < 1400; t += 17) {
              const id = IDS[1 + (t % 4)]!
              net.at(t, () => net.stepClock(id, (t % 2 === 0 ? 1 : -1) * (50 + (t % 400))))
            }
          },
        },
      )
      const verdict = checkClockSync(run.events, {
        referenceAt: (_server, t) => t,
        epsilonMs: 0,
        expectOutcome: IDS.slice(1),
      })
      expect(verdict.violations).toEqual([])
      checked += verdict.adjustments
    })
    expect(checked).toBeGreaterThan(1000)
  })

  it('keeps the least round trip: more samples, a tighter bound', () => {
    const bounds = (samples: number) => {
      const run = runSync(
        IDS,
        (self, clock) => cristian({ server: SERVER, samples })(self, clock),
        {
          seed: 7,
          spreadMs: 30,
          until: 1000,
        },
      )
      const b = ofType(run.events, 'adjusted').map((e) => e.event.errorBoundMs)
      return b.reduce((x, y) => x + y, 0) / b.length
    }
    expect(bounds(8)).toBeLessThan(bounds(1))
  })

  it('brings every client within its bound of the server once the slew is done', () => {
    const run = runSync(
      IDS,
      (self, clock) => cristian({ server: SERVER, samples: 4 })(self, clock),
      {
        seed: 3,
        clockOf: (id, random) =>
          id === SERVER ? { offset: 0, drift: 0 } : { offset: (2 * random() - 1) * 100, drift: 0 },
        maxSlewRate: 0.1,
        until: 3000,
      },
    )
    const bound = new Map(ofType(run.events, 'adjusted').map((e) => [e.node, e.event.errorBoundMs]))
    for (const [id, error] of run.errors()) {
      if (id === SERVER) continue
      expect(Math.abs(error)).toBeLessThanOrEqual(bound.get(id)!)
    }
  })

  it('reports a round without any answer as sync-failed, not as a correction', () => {
    const run = runSync(IDS, (self, clock) => cristian({ server: SERVER })(self, clock), {
      seed: 1,
      until: 1000,
      plan: (net) => net.crash(SERVER),
    })
    const kinds = run.events.map((e) => e.event.type)
    expect(kinds).not.toContain('adjusted')
    expect(kinds.filter((k) => k === 'sync-failed')).toHaveLength(4)
  })

  it('refuses options outside their domain', () => {
    expect(() => cristian({ server: 0, samples: 0 })).toThrow(/samples/)
    expect(() => cristian({ server: 0, sampleTimeoutMs: 0 })).toThrow(/sampleTimeoutMs/)
    expect(() => cristian({ server: 0, handlingMs: -1 })).toThrow(/handlingMs/)
  })
})
