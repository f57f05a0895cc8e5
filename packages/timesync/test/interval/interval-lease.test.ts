import { isSdError } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { ClockUnsynchronizedError, LeaseLostError, TimeWaitAbortedError } from '../../src/errors.js'
import {
  createIntervalLease,
  IntervalLease,
  IntervalTimeSource,
  type LeaseHold,
} from '../../src/interval/index.js'
import { SimulatedMachine } from './simulated-clocks.js'

/** Settles pending promise callbacks (the timers are simulated, the promises are real). */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve))

function setup(drift = 0, options: { marginMs?: number; checkEveryMs?: number } = {}) {
  const machine = new SimulatedMachine({ drift, startMs: 1e12 })
  const source = new IntervalTimeSource({
    clocks: machine,
    timers: machine,
    maxDriftPpm: 200,
    maxSyncAgeMs: 60_000,
  })
  const sync = (errorBoundMs = 2, errorMs = 0) =>
    source.sync({
      monotonicMs: machine.monotonic(),
      timeMs: machine.trueMs + errorMs,
      errorBoundMs,
    })
  sync()
  return { machine, source, sync, lease: createIntervalLease(source, options) }
}

/** Advances true time in 1 ms slices until `done`, at most `maxMs`. */
async function runUntil(machine: SimulatedMachine, done: () => boolean, maxMs: number) {
  for (let i = 0; i < maxMs && !done(); i++) {
    machine.advance(1)
    await flush()
  }
}

const reasonOf = (hold: LeaseHold) => hold.signal.reason as LeaseLostError

describe('IntervalLease.hold', () => {
  it('aborts its signal once latest reaches end − margin: before the end in true time, not much sooner', async () => {
    for (const drift of [-2e-4, 0, 2e-4]) {
      const { machine, lease } = setup(drift, { marginMs: 10 })
      const end = machine.trueMs + 500
      const hold = await lease.hold({ end })
      let abortedAt = Number.NaN
      hold.signal.addEventListener('abort', () => {
        abortedAt = machine.trueMs
      })
      await runUntil(machine, () => hold.signal.aborted, 1_000)
      expect(reasonOf(hold)).toBeInstanceOf(LeaseLostError)
      expect(reasonOf(hold).reason).toBe('ended')
      expect(abortedAt).toBeLessThan(end - 10)
      // The sync's ± 2 and the drift allowance (200 ppm of 500 ms), and a 1 ms timer slice.
      expect(abortedAt).toBeGreaterThan(end - 10 - 2 * 2 - 1 - 1)
      expect(() => hold.assertHeld()).toThrow(LeaseLostError)
      expect(machine.pendingTimers).toBe(0)
    }
  })

  it('waits for earliest to pass start before it resolves', async () => {
    const { machine, lease } = setup()
    const start = machine.trueMs + 100
    let hold: LeaseHold | undefined
    let resolvedAt = Number.NaN
    void lease.hold({ start, end: start + 1_000 }).then((h) => {
      hold = h
      resolvedAt = machine.trueMs
    })
    await runUntil(machine, () => hold !== undefined, 500)
    expect(resolvedAt).toBeGreaterThan(start)
    expect(hold?.signal.aborted).toBe(false)
    expect(hold?.assertHeld().earliest).toBeGreaterThan(start)
    hold?.release()
    expect(hold && reasonOf(hold).reason).toBe('released')
    expect(machine.pendingTimers).toBe(0)
  })

  it('aborts on a wall-clock step within checkEveryMs, even with nobody else reading', async () => {
    const { machine, lease } = setup(0, { checkEveryMs: 50 })
    const hold = await lease.hold({ end: machine.trueMs + 60_000 })
    machine.advance(20)
    machine.stepWall(-2_000)
    await runUntil(machine, () => hold.signal.aborted, 100)
    expect(reasonOf(hold).reason).toBe('stepped')
    expect(machine.pendingTimers).toBe(0)
  })

  it('aborts as the sync expires, and at once when a new sync moves latest past the end', async () => {
    const { machine, lease, sync } = setup()
    const hold = await lease.hold({ end: machine.trueMs + 1e7 })
    machine.advance(59_999)
    await flush()
    expect(hold.signal.aborted).toBe(false)
    await runUntil(machine, () => hold.signal.aborted, 100)
    expect(reasonOf(hold)).toMatchObject({ reason: 'unsynchronized', status: 'expired' })

    sync()
    const second = await lease.hold({ end: machine.trueMs + 100 })
    // A worse sync: ± 80 ms, reading 50 ms ahead. Its latest is past the end already.
    sync(80, 50)
    expect(reasonOf(second).reason).toBe('ended')
    expect(machine.pendingTimers).toBe(0)
  })

  it('rejects terms it cannot hold: ended, unsynchronized, bad, or its signal fired while waiting', async () => {
    const { machine, lease, source } = setup()
    const ended = await lease.hold({ end: machine.trueMs - 1 }).catch((e: unknown) => e)
    expect(ended).toMatchObject({ code: 'ERR_LEASE_LOST', reason: 'ended' })
    const bad = await lease.hold({ start: 5, end: 4 }).catch((e: unknown) => e)
    expect(isSdError(bad) && bad.code).toBe('ERR_INVALID_ARGUMENT')
    const controller = new AbortController()
    const waiting = lease.hold(
      { start: machine.trueMs + 1_000, end: machine.trueMs + 2_000 },
      { signal: controller.signal },
    )
    machine.advance(10)
    controller.abort('bye')
    const aborted = await waiting.catch((e: unknown) => e)
    expect(aborted).toBeInstanceOf(TimeWaitAbortedError)
    expect(machine.pendingTimers).toBe(0)
    const fresh = new IntervalLease(new IntervalTimeSource({ clocks: machine, timers: machine }))
    const unsynced = await fresh.hold({ end: machine.trueMs + 1_000 }).catch((e: unknown) => e)
    expect(unsynced).toMatchObject({ reason: 'unsynchronized', status: 'never-synced' })
    expect(() => new IntervalLease(source, { marginMs: -1 })).toThrow(/marginMs/)
    expect(() => new IntervalLease(source, { checkEveryMs: 0 })).toThrow(/checkEveryMs/)
  })
})

describe('IntervalLease.grantAfter', () => {
  it('grants once earliest > previousEnd, ending at latest + duration, and the holder may act at once', async () => {
    const { machine, lease } = setup(1e-4)
    const previousEnd = machine.trueMs + 300
    let granted: { start?: number; end: number } | undefined
    let grantedAt = Number.NaN
    void lease.grantAfter(previousEnd, { durationMs: 1_000 }).then((terms) => {
      granted = terms
      grantedAt = machine.trueMs
    })
    await runUntil(machine, () => granted !== undefined, 1_000)
    expect(grantedAt).toBeGreaterThan(previousEnd)
    expect(granted?.start).toBe(previousEnd)
    expect(granted?.end).toBeGreaterThanOrEqual(grantedAt + 1_000)
    const hold = await lease.hold(granted as { end: number })
    expect(hold.signal.aborted).toBe(false)
    hold.release()
  })

  it('rejects: unsynchronized, aborted, bad input', async () => {
    const { machine, lease } = setup()
    const controller = new AbortController()
    const waiting = lease.grantAfter(machine.trueMs + 5_000, {
      durationMs: 10,
      signal: controller.signal,
    })
    machine.advance(10)
    controller.abort()
    expect(await waiting.catch((e: unknown) => e)).toBeInstanceOf(TimeWaitAbortedError)
    const fresh = new IntervalLease(new IntervalTimeSource({ clocks: machine, timers: machine }))
    expect(
      await fresh.grantAfter(undefined, { durationMs: 10 }).catch((e: unknown) => e),
    ).toBeInstanceOf(ClockUnsynchronizedError)
    for (const [previousEnd, durationMs] of [
      [0, 0],
      [0, Number.NaN],
      [Number.POSITIVE_INFINITY, 10],
    ] as const) {
      const error = await lease.grantAfter(previousEnd, { durationMs }).catch((e: unknown) => e)
      expect(isSdError(error) && error.code).toBe('ERR_INVALID_ARGUMENT')
    }
  })
})
