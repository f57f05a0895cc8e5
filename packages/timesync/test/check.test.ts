/**
 * checkClockSync judges runs from their traces: Cristian under injected faults (message loss,
 * client wall clocks stepped mid-exchange, paused processes) over many seeds, and traces with a
 * broken bound or a missing outcome, which it must catch.
 */
import { createRandom, type NodeId, type TimedEvent } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { checkClockSync } from '../src/check.js'
import type { AdjustedEvent, SyncFailedEvent } from '../src/contract.js'
import { cristian } from '../src/cristian/protocol.js'
import { runSync } from './sync/harness.js'

const SERVER = 0
const CLIENTS = [1, 2, 3, 4]
const IDS = [SERVER, ...CLIENTS]
/** The server is the reference and keeps true time: its reading at trace time t is t. */
const trueTime = (_source: NodeId | undefined, t: number) => t

/** Cristian over lossy links, with client clocks stepped and processes paused at random. */
function faultyCristianRun(seed: number, options: { periodMs?: number; until: number }) {
  const faults = createRandom(`faults/${seed}`).next
  return runSync(
    IDS,
    (self, clock) =>
      cristian({ server: SERVER, samples: 1 + (seed % 4), sampleTimeoutMs: 60, ...options })(
        self,
        clock,
      ),
    {
      seed,
      clockOf: (id, random) =>
        id === SERVER
          ? { offset: 0, drift: 0 }
          : { offset: (2 * random() - 1) * 300, drift: (2 * random() - 1) * 1e-4 },
      spreadMs: 2 + (seed % 15),
      net: { loss: 0.05 + (seed % 5) * 0.05 },
      until: options.until,
      plan: (net) => {
        // Bounded by construction: a fault every 10 to 50 ms until 90% of the run.
        for (let t = 5 + faults() * 40; t < options.until * 0.9; t += 10 + faults() * 40) {
          const id = CLIENTS[Math.floor(faults() * CLIENTS.length)]!
          const what = faults()
          if (what < 0.6) {
            const delta = (faults() < 0.5 ? -1 : 1) * (1 + faults() * 400)
            net.at(t, () => net.stepClock(id, delta))
          } else {
            // The server pauses too: its answers then come late, never wrong.
            const who = what < 0.8 ? id : SERVER
            const forMs = 1 + faults() * 80
            net.at(t, () => {
              if (!net.isPaused(who)) net.pause(who)
            })
            net.at(t + forMs, () => {
              if (net.isPaused(who)) net.resume(who)
            })
          }
        }
      },
    },
  )
}

describe('checkClockSync', () => {
  it('judges Cristian within its bounds under loss, clock steps and pauses (many seeds)', () => {
    let adjustments = 0
    let failures = 0
    forSeeds(seedList(80), (seed) => {
      const run = faultyCristianRun(seed, { periodMs: 120, until: 1500 })
      const verdict = checkClockSync(run.events, {
        referenceAt: trueTime,
        expectOutcome: CLIENTS,
      })
      expect(verdict.violations).toEqual([])
      expect(verdict.ok).toBe(true)
      adjustments += verdict.adjustments
      failures += run.events.filter((e) => e.event.type === 'sync-failed').length
    })
    // The faults bit (some rounds failed) and most rounds still corrected a clock.
    expect(failures).toBeGreaterThan(0)
    expect(adjustments).toBeGreaterThan(failures)
  })

  it('sees exactly one outcome per client of a single round, lost messages or not (many seeds)', () => {
    forSeeds(seedList(80), (seed) => {
      const run = faultyCristianRun(seed, { until: 1000 })
      const verdict = checkClockSync(run.events, {
        referenceAt: trueTime,
        expectOutcome: CLIENTS,
        rounds: 1,
      })
      expect(verdict.violations).toEqual([])
    })
  })

  const adjusted = (over: Partial<AdjustedEvent>): AdjustedEvent => ({
    type: 'adjusted',
    algorithm: 'cristian',
    readingMs: 100,
    offsetMs: 5,
    errorBoundMs: 2,
    kind: 'slew',
    source: SERVER,
    ...over,
  })

  it('catches a target outside its bound, and names where', () => {
    // At t = 104 the server reads 104: a target of 105 is 1 ms off (within 2), 108 is 4 ms off.
    const events: TimedEvent<AdjustedEvent | SyncFailedEvent>[] = [
      { node: 1, t: 104, event: adjusted({}) },
      { node: 2, t: 104, event: adjusted({ offsetMs: 8 }) },
    ]
    const verdict = checkClockSync(events, { referenceAt: trueTime })
    expect(verdict.ok).toBe(false)
    expect(verdict.violations).toEqual([
      {
        kind: 'outside-bound',
        node: 2,
        t: 104,
        source: SERVER,
        targetMs: 108,
        referenceMs: 104,
        errorMs: 4,
        errorBoundMs: 2,
      },
    ])
    // The same trace against a reference 3 ms ahead: node 1 is now the one off (by 2 + 1).
    const ahead = checkClockSync(events, { referenceAt: (_, t) => t + 3.5 })
    expect(ahead.violations.map((v) => v.kind === 'outside-bound' && v.node)).toEqual([1])
  })

  it('catches a node that never reported an outcome, or one too many', () => {
    const failed: SyncFailedEvent = { type: 'sync-failed', algorithm: 'cristian', reason: 'lost' }
    const events: TimedEvent<AdjustedEvent | SyncFailedEvent>[] = [
      { node: 1, t: 104, event: adjusted({}) },
      { node: 1, t: 300, event: failed },
    ]
    expect(
      checkClockSync(events, { referenceAt: trueTime, expectOutcome: [1, 2] }).violations,
    ).toEqual([{ kind: 'no-outcome', node: 2 }])
    expect(
      checkClockSync(events, { referenceAt: trueTime, expectOutcome: [1], rounds: 1 }).violations,
    ).toEqual([{ kind: 'outcome-count', node: 1, expected: 1, got: 2 }])
  })

  it('refuses an adjusted event without its numbers rather than passing it', () => {
    const events: TimedEvent[] = [{ node: 3, t: 1, event: { type: 'adjusted', offsetMs: 1 } }]
    expect(checkClockSync(events, { referenceAt: trueTime }).violations).toEqual([
      { kind: 'malformed-adjusted', node: 3, t: 1 },
    ])
  })
})
