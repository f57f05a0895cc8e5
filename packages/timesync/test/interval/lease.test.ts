import { isSdError } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import {
  checkLeaseTerms,
  grantVerdict,
  holdVerdict,
  IntervalClock,
  type SynchronizedInterval,
} from '../../src/interval/index.js'
import { SimulatedMachine } from './simulated-clocks.js'

/** A clock at 100 ppm synced to t = 10,000 ± 2 at monotonic 0. */
function synced() {
  const clock = new IntervalClock({ maxDriftPpm: 100, maxSyncAgeMs: 60_000 })
  clock.sync({ monotonicMs: 0, timeMs: 10_000, errorBoundMs: 2 }, { monotonicMs: 0, wallMs: 0 })
  const at = (ms: number) => clock.read({ monotonicMs: ms, wallMs: ms })
  return { clock, at }
}

describe('holdVerdict (the holder)', () => {
  it('may act only while latest < end − margin, and says how long on the monotonic clock', () => {
    const { clock, at } = synced()
    const now = at(0)
    const verdict = holdVerdict({ end: 11_000 }, now, clock.settings)
    expect(verdict.mayAct).toBe(true)
    // latest = 10,002 now, and grows by 1 / (1 − ρ) per monotonic ms.
    const remaining = verdict.mayAct ? verdict.remainingMs : Number.NaN
    expect(remaining).toBeCloseTo(998 * (1 - 1e-4), 9)
    // Just before that reading, may act; once there latest has reached the end: must stop.
    expect(holdVerdict({ end: 11_000 }, at(remaining - 0.01), clock.settings).mayAct).toBe(true)
    const atEnd = holdVerdict({ end: 11_000 }, at(remaining + 1e-6), clock.settings)
    expect(atEnd).toMatchObject({ mayAct: false, reason: 'ended' })
    // A margin of 100 ms stops it 100 reference ms sooner.
    const withMargin = holdVerdict({ end: 11_000 }, now, clock.settings, 100)
    expect(withMargin.mayAct && withMargin.remainingMs).toBeCloseTo(898 * (1 - 1e-4), 9)
    expect(holdVerdict({ end: 10_050 }, now, clock.settings, 48).mayAct).toBe(false)
    expect(holdVerdict({ end: 10_050 }, now, clock.settings, 47).mayAct).toBe(true)
  })

  it('waits for earliest to pass start, and says how long', () => {
    const { clock, at } = synced()
    const verdict = holdVerdict({ start: 10_100, end: 11_000 }, at(0), clock.settings)
    expect(verdict).toMatchObject({ mayAct: false, reason: 'not-started' })
    const waitMs = verdict.mayAct || verdict.reason !== 'not-started' ? 0 : verdict.waitMs
    // earliest = 9,998 now, and grows by 1 / (1 + ρ) per monotonic ms.
    expect(waitMs).toBeCloseTo(102 * (1 + 1e-4), 9)
    expect(holdVerdict({ start: 10_100, end: 11_000 }, at(waitMs), clock.settings).mayAct).toBe(
      false,
    )
    expect(
      holdVerdict({ start: 10_100, end: 11_000 }, at(waitMs + 0.01), clock.settings).mayAct,
    ).toBe(true)
  })

  it('caps the remaining time at the sync’s expiry', () => {
    const { clock, at } = synced()
    const verdict = holdVerdict({ end: 1e9 }, at(59_000), clock.settings)
    expect(verdict.mayAct && verdict.remainingMs).toBe(1_000)
  })

  it('must stop when the clock is never synced, expired or stepped', () => {
    const fresh = new IntervalClock({ maxSyncAgeMs: 1_000 })
    const machine = new SimulatedMachine({ startMs: 5_000 })
    const never = holdVerdict({ end: 1e9 }, fresh.read(machine.reading()), fresh.settings)
    expect(never).toEqual({ mayAct: false, reason: 'unsynchronized', status: 'never-synced' })
    fresh.sync(
      { monotonicMs: machine.monotonic(), timeMs: machine.trueMs, errorBoundMs: 1 },
      machine.reading(),
    )
    machine.advance(2_000)
    expect(holdVerdict({ end: 1e9 }, fresh.read(machine.reading()), fresh.settings)).toEqual({
      mayAct: false,
      reason: 'unsynchronized',
      status: 'expired',
    })
    fresh.sync(
      { monotonicMs: machine.monotonic(), timeMs: machine.trueMs, errorBoundMs: 1 },
      machine.reading(),
    )
    machine.stepWall(-3_000)
    machine.advance(10)
    expect(holdVerdict({ end: 1e9 }, fresh.read(machine.reading()), fresh.settings)).toEqual({
      mayAct: false,
      reason: 'unsynchronized',
      status: 'stepped',
    })
  })
})

describe('grantVerdict (the grantor)', () => {
  it('grants only once earliest > previousEnd, ending at latest + duration', () => {
    const { clock, at } = synced()
    const early = grantVerdict(at(0), 10_000, 500, clock.settings)
    expect(early).toMatchObject({ granted: false, reason: 'too-early' })
    const waitMs = early.granted || early.reason !== 'too-early' ? 0 : early.waitMs
    expect(waitMs).toBeCloseTo(2 * (1 + 1e-4), 9)
    expect(grantVerdict(at(waitMs), 10_000, 500, clock.settings).granted).toBe(false)
    const later = at(waitMs + 0.01) as SynchronizedInterval
    const grant = grantVerdict(later, 10_000, 500, clock.settings)
    expect(grant.granted && grant.terms).toEqual({ start: 10_000, end: later.latest + 500 })
    // A first lease: no wait, no start.
    const first = grantVerdict(at(waitMs + 0.02), undefined, 500, clock.settings)
    expect(first.granted && first.terms.start).toBeUndefined()
  })

  it('a granted lease leaves its holder at least duration − 2 × (both bounds) to act (same reference)', () => {
    const { clock, at } = synced()
    const grantor = at(0) as SynchronizedInterval
    const grant = grantVerdict(grantor, undefined, 500, clock.settings)
    const terms = grant.granted ? grant.terms : { end: 0 }
    // A holder synced to the same reference, ± 5 ms, sees it at once: it may act.
    const holder = new IntervalClock({ maxDriftPpm: 100 })
    holder.sync({ monotonicMs: 0, timeMs: 10_004, errorBoundMs: 5 }, { monotonicMs: 0, wallMs: 0 })
    const verdict = holdVerdict(terms, holder.read({ monotonicMs: 0, wallMs: 0 }), holder.settings)
    expect(verdict.mayAct && verdict.remainingMs).toBeGreaterThan(500 - 2 * 2 - 2 * 5)
  })

  it('will not grant on an unsynchronized clock', () => {
    const clock = new IntervalClock()
    expect(grantVerdict(clock.read({ monotonicMs: 0, wallMs: 0 }), 0, 10, clock.settings)).toEqual({
      granted: false,
      reason: 'unsynchronized',
      status: 'never-synced',
    })
  })
})

describe('input', () => {
  it('refuses bad terms, durations and ends as InvalidArgumentError', () => {
    const { clock, at } = synced()
    const bad: unknown[] = [
      () => checkLeaseTerms({ end: Number.NaN }),
      () => checkLeaseTerms({ end: Number.POSITIVE_INFINITY }),
      () => checkLeaseTerms({ start: 5, end: 5 }),
      () => checkLeaseTerms({ start: Number.NEGATIVE_INFINITY, end: 5 }),
      () => checkLeaseTerms(null as never),
      () => checkLeaseTerms({ end: '5' } as never),
      () => grantVerdict(at(0), undefined, 0, clock.settings),
      () => grantVerdict(at(0), undefined, -1, clock.settings),
      () => grantVerdict(at(0), Number.NaN, 10, clock.settings),
    ]
    for (const call of bad) {
      let error: unknown
      try {
        ;(call as () => void)()
      } catch (e) {
        error = e
      }
      expect(isSdError(error) && error.code).toBe('ERR_INVALID_ARGUMENT')
    }
    expect(checkLeaseTerms({ start: 1, end: 2, extra: 3 } as never)).toEqual({ start: 1, end: 2 })
  })
})
