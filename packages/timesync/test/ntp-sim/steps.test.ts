import type { NodeId, Protocol } from '@sd/transport'
import { ofType } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../../test-support/seeds.js'
import { checkClockSync } from '../../src/check.js'
import type { SyncRequest } from '../../src/contract.js'
import { FREQUENCY_TOLERANCE } from '../../src/ntp/on-wire.js'
import type { NtpSimEvent } from '../../src/ntp-sim/events.js'
import type { NtpSimMessage } from '../../src/ntp-sim/messages.js'
import { ntpSim } from '../../src/ntp-sim/protocol.js'
import { WallStepWatch } from '../../src/ntp-sim/step-watch.js'
import { runSync } from '../sync/harness.js'

const SERVERS: NodeId[] = [1, 2, 3]
const CLIENTS: NodeId[] = [4, 5]

describe('ntpSim across steps of the client’s own wall clock', () => {
  it('every adjusted target lies within its bound of true time, with steps and loss (many seeds)', () => {
    let adjustments = 0
    let flushes = 0
    forSeeds(seedList(30), (seed) => {
      const run = runSync(
        [...SERVERS, ...CLIENTS],
        (self, clock) => ntpSim({ servers: SERVERS, pollMs: 500 })(self, clock),
        {
          seed,
          // Within RFC 5905's 15 ppm, which the filter's aging assumes.
          clockOf: (id, random) =>
            SERVERS.includes(id)
              ? { offset: 0, drift: 0 }
              : { offset: (2 * random() - 1) * 200, drift: (2 * random() - 1) * 1.5e-5 },
          net: { loss: 0.1 },
          maxSlewRate: 0.05,
          until: 20_000,
          plan: (net) => {
            let r = seed * 7919
            const random = () => {
              r = (r * 1103515245 + 12345) % 2147483648
              return r / 2147483648
            }
            for (const client of CLIENTS)
              for (let t = 1_500 + random() * 2_000; t < 19_000; t += 1_000 + random() * 3_000) {
                const delta = Math.sign(random() - 0.5) * (5 + random() * 5_000)
                net.at(t, () => net.stepClock(client, delta))
              }
          },
        },
      )
      const verdict = checkClockSync(run.events, {
        referenceAt: (_, t) => t,
        epsilonMs: 1e-6,
        expectOutcome: CLIENTS,
      })
      expect(verdict.violations).toEqual([])
      expect(verdict.adjustments).toBeGreaterThan(CLIENTS.length * 5)
      adjustments += verdict.adjustments
      flushes += ofType(run.events, 'filter-flushed').length
    })
    expect(adjustments).toBeGreaterThan(30 * 20)
    expect(flushes).toBeGreaterThan(30 * 5)
  })
})

type Snapshot = { filters: { server: NodeId; samples: { measuredAtMs: number }[] }[] }

describe('ntpSim’s clock filter on one client', () => {
  it('drops the samples measured before a step of the wall clock, and says so', () => {
    let client: Protocol<NtpSimMessage, SyncRequest, NtpSimEvent> | undefined
    /** The client's samples of server 1, from its snapshot. */
    const samples = () => (client?.snapshot?.() as Snapshot | undefined)?.filters[0]?.samples ?? []
    let beforeSamples: Snapshot['filters'][number]['samples'] = []
    const run = runSync<unknown, unknown, NtpSimEvent>(
      [1, 2],
      (self, clock) => {
        const node = ntpSim({ servers: [1], pollMs: 500 })(self, clock)
        if (self === 2) client = node
        return node
      },
      {
        seed: 3,
        clockOf: (id) => ({ offset: id === 1 ? 0 : 40, drift: 0 }),
        until: 6_000,
        plan: (net) => {
          net.at(3_100, () => {
            beforeSamples = samples()
            net.stepClock(2, -2_000)
          })
        },
      },
    )
    expect(beforeSamples.length).toBeGreaterThanOrEqual(5)
    const flushed = ofType(run.events, 'filter-flushed')
    expect(flushed.map(({ event }) => event)).toEqual([
      {
        type: 'filter-flushed',
        reason: 'wall-clock step',
        stepMs: -2_000,
        dropped: beforeSamples.length,
      },
    ])
    // Set back 2 s, the software clock stands still for 2 s: round trips timed on it are refused.
    const frozen = ofType(run.events, 'ntp-rejected').filter(
      ({ t, event }) => event.reason === 'wall-clock-step' && t > 3_100 && t < 5_100,
    )
    expect(frozen.length).toBeGreaterThan(0)
    // What is kept at the end was all measured after the step (monotonic time, here true time).
    const after = samples()
    expect(after.length).toBeGreaterThan(0)
    for (const sample of after) expect(sample.measuredAtMs).toBeGreaterThan(3_100)
    expect(
      checkClockSync(run.events, { referenceAt: (_, t) => t, epsilonMs: 1e-6 }).violations,
    ).toEqual([])
  })

  it('ages its best sample: a client drifting 14 ppm stays within the bound on one old sample', () => {
    // The first exchange is quick (1 ms round trip), every later one slow (40 ms): the first
    // sample stays the best for 7 polls a minute apart, while the client drifts from the server
    // by 14 ppm of its age. Unaged, its bound (0.5 ms and a little) misses the drift (~6 ms).
    const run = runSync<unknown, unknown, NtpSimEvent>(
      [1, 2],
      (self, clock) => ntpSim({ servers: [1], pollMs: 60_000 })(self, clock),
      {
        seed: 1,
        clockOf: (id) => ({ offset: id === 1 ? 0 : 50, drift: id === 1 ? 0 : 14e-6 }),
        net: { latency: 0.5 },
        until: 7 * 60_000 + 1_000,
        plan: (net) => net.at(100, () => net.setDefaultLink({ latency: 20 })),
      },
    )
    const adjusted = ofType(run.events, 'adjusted')
    expect(adjusted.length).toBe(8)
    const last = adjusted.at(-1)!.event
    expect(last.errorBoundMs).toBeGreaterThan(0.5 + FREQUENCY_TOLERANCE * 7 * 60_000 - 0.1)
    expect(
      checkClockSync(run.events, { referenceAt: (_, t) => t, epsilonMs: 1e-6 }).violations,
    ).toEqual([])
  })
})

describe('the wall-clock step watch', () => {
  it('sees a step beyond the tolerance, not the clocks running on together', () => {
    const watch = new WallStepWatch()
    expect(watch.observe(1_000, 0)).toBeUndefined()
    expect(watch.observe(2_000.5, 1_000)).toBeUndefined()
    expect(watch.observe(1_000, 2_000)).toBeCloseTo(-2_000.5, 6)
    expect(watch.observe(2_000, 3_000)).toBeUndefined()
    expect(watch.observe(3_010, 4_000)).toBeCloseTo(10, 6)
  })
})
