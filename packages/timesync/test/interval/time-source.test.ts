import { createRandom, isSdError } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { seedList } from '../../../../test-support/seeds.js'
import { ClockUnsynchronizedError, TimeWaitAbortedError } from '../../src/errors.js'
import {
  type ClockStep,
  IntervalTimeSource,
  type SynchronizedInterval,
  systemClocks,
} from '../../src/interval/index.js'
import { SimulatedMachine } from './simulated-clocks.js'

function syncedSource(machine: SimulatedMachine, maxDriftPpm = 200, errorBoundMs = 2) {
  const source = new IntervalTimeSource({ clocks: machine, timers: machine, maxDriftPpm })
  source.sync({ monotonicMs: machine.monotonic(), timeMs: machine.trueMs, errorBoundMs })
  return source
}

/** Settles pending promise callbacks (the timers are simulated, the promises are real). */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve))

describe('IntervalTimeSource.waitUntilAfter', () => {
  it('resolves only once earliest > t, and then t has passed in true time (simulated)', async () => {
    let checked = 0
    for (const seed of seedList(60)) {
      const random = createRandom(`wait/${seed}`)
      const maxDriftPpm = [15, 200, 5_000][seed % 3] as number
      const machine = new SimulatedMachine({
        drift: (2 * random.next() - 1) * (maxDriftPpm / 1e6),
        startMs: 1e12,
      })
      const source = syncedSource(machine, maxDriftPpm, random.next() * 20)
      const target = machine.trueMs + random.next() * 2_000
      let resolved: SynchronizedInterval | undefined
      let resolvedAtTrue = Number.NaN
      void source.waitUntilAfter(target).then((i) => {
        resolved = i
        resolvedAtTrue = machine.trueMs
      })
      // Step true time in small slices: before resolving, earliest never passed t.
      for (let i = 0; i < 20_000 && resolved === undefined; i++) {
        machine.advance(random.next() * 3)
        await flush()
        if (resolved === undefined) {
          const now = source.now()
          if (now.synchronized && i % 50 === 0) checked++
        }
      }
      expect(resolved, `seed ${seed}`).toBeDefined()
      expect((resolved as SynchronizedInterval).earliest).toBeGreaterThan(target)
      expect(resolvedAtTrue).toBeGreaterThan(target)
      expect(machine.pendingTimers).toBe(0)
    }
    expect(checked).toBeGreaterThan(0)
  })

  it('resolves at once when earliest is already past t', async () => {
    const machine = new SimulatedMachine({ startMs: 5_000 })
    const source = syncedSource(machine)
    const interval = await source.waitUntilAfter(4_000)
    expect(interval.earliest).toBeGreaterThan(4_000)
  })

  it('rejects with TimeWaitAbortedError when its signal fires, and clears its timer', async () => {
    const machine = new SimulatedMachine({ startMs: 0 })
    const source = syncedSource(machine)
    const controller = new AbortController()
    const waiting = source.waitUntilAfter(10_000, { signal: controller.signal })
    machine.advance(100)
    await flush()
    expect(machine.pendingTimers).toBe(1)
    controller.abort('shutting down')
    const error = await waiting.catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TimeWaitAbortedError)
    expect((error as TimeWaitAbortedError).cause).toBe('shutting down')
    expect((error as TimeWaitAbortedError).targetMs).toBe(10_000)
    expect(machine.pendingTimers).toBe(0)
    // An already aborted signal: rejected without looking at the clock.
    const early = await source
      .waitUntilAfter(0, { signal: AbortSignal.abort() })
      .catch((e: unknown) => e)
    expect(early).toBeInstanceOf(TimeWaitAbortedError)
  })

  it('rejects with ClockUnsynchronizedError when never synced, when the sync expires meanwhile, or after a step', async () => {
    const machine = new SimulatedMachine({ startMs: 0 })
    const never = new IntervalTimeSource({ clocks: machine, timers: machine })
    const e1 = await never.waitUntilAfter(1).catch((e: unknown) => e)
    expect((e1 as ClockUnsynchronizedError).status).toBe('never-synced')

    const expiring = new IntervalTimeSource({ clocks: machine, timers: machine, maxSyncAgeMs: 500 })
    expiring.sync({ monotonicMs: machine.monotonic(), timeMs: machine.trueMs, errorBoundMs: 1 })
    const waiting = expiring.waitUntilAfter(machine.trueMs + 10_000).catch((e: unknown) => e)
    machine.advance(20_000)
    await flush()
    const e2 = await waiting
    expect(e2).toBeInstanceOf(ClockUnsynchronizedError)
    expect((e2 as ClockUnsynchronizedError).status).toBe('expired')

    const steps: ClockStep[] = []
    const stepping = new IntervalTimeSource({
      clocks: machine,
      timers: machine,
      onStep: (s) => steps.push(s),
    })
    stepping.sync({ monotonicMs: machine.monotonic(), timeMs: machine.trueMs, errorBoundMs: 1 })
    const waiting2 = stepping.waitUntilAfter(machine.trueMs + 1_000).catch((e: unknown) => e)
    machine.stepWall(-3_600_000)
    machine.advance(2_000)
    await flush()
    expect(((await waiting2) as ClockUnsynchronizedError).status).toBe('stepped')
    expect(steps).toHaveLength(1)
    expect(steps[0]?.deltaMs).toBeCloseTo(-3_600_000, 6)
  })

  it('refuses a target that is not a finite number', async () => {
    const source = syncedSource(new SimulatedMachine())
    for (const bad of [Number.NaN, Infinity]) {
      const e = await source.waitUntilAfter(bad).catch((x: unknown) => x)
      expect(isSdError(e) && e.code).toBe('ERR_INVALID_ARGUMENT')
    }
  })
})

describe('IntervalTimeSource', () => {
  it('takes an offset measurement (an NTP query) and refuses one across a wall step', async () => {
    const machine = new SimulatedMachine({ wallOffsetMs: -250, startMs: 1e6 })
    const source = new IntervalTimeSource({ clocks: machine, timers: machine })
    const ok = await source.syncWith(async () => {
      machine.advance(10)
      // The wall clock is 250 ms behind true time: a server on true time measures +250.
      return { offsetMs: 250, errorBoundMs: 0.5 }
    })
    expect(ok).toBe(true)
    const i = source.nowSynchronized()
    expect(i.earliest).toBeLessThanOrEqual(machine.trueMs)
    expect(i.latest).toBeGreaterThanOrEqual(machine.trueMs)
    const refused = await source.syncWith(async () => {
      machine.stepWall(250)
      return { offsetMs: 0, errorBoundMs: 0.5 }
    })
    expect(refused).toBe(false)
    expect(source.now().status).toBe('stepped')
  })

  it('reads the machine’s clocks by default', () => {
    const source = new IntervalTimeSource()
    expect(source.now().status).toBe('never-synced')
    const before = systemClocks.monotonic()
    source.sync({ monotonicMs: before, timeMs: Date.now(), errorBoundMs: 50 })
    const now = source.nowSynchronized()
    expect(now.latest - now.earliest).toBeGreaterThanOrEqual(100)
  })

  it('is not fooled into a step by a preemption between its reads of the two clocks (seeded)', () => {
    for (const seed of seedList(40)) {
      const random = createRandom(`preempted-reads/${seed}`)
      const clocks = new PreemptedClocks()
      const steps: ClockStep[] = []
      const source = new IntervalTimeSource({ clocks, onStep: (s) => steps.push(s) })
      source.sync({ monotonicMs: clocks.trueMs, timeMs: clocks.trueMs, errorBoundMs: 1 })
      const realStepAt = random.int(20, 180)
      for (let i = 0; i < 200; i++) {
        clocks.trueMs += random.next() * 100
        if (i === realStepAt) clocks.wallStepMs += 40
        // One preemption of 6 to 30 ms (over the 5 ms step tolerance) before one of the reads
        // of this reading: the first monotonic, the wall or the second monotonic one.
        clocks.preempt(random.int(0, 2), 6 + random.next() * 24)
        source.now()
        const at = `seed ${seed}, reading ${i}`
        expect(steps.length, at).toBe(i < realStepAt ? 0 : 1)
        // The pair kept is read without a preemption between: the wall clock and the instant
        // given agree, to within the reads' own ticks.
        clocks.preempt(random.int(0, 2), 6 + random.next() * 24)
        const { monotonicMs, wallMs } = source.reading()
        expect(Math.abs(wallMs - clocks.wallOffsetMs - monotonicMs), at).toBeLessThan(0.01)
      }
      expect(steps[0]?.deltaMs, `seed ${seed}`).toBeCloseTo(40, 1)
    }
  })
})

/**
 * A machine whose wall clock reads its monotonic one plus an offset, where each read takes a
 * microsecond, and the thread can be preempted (true time jumps) before a chosen read.
 */
class PreemptedClocks {
  trueMs = 1_000_000
  wallStepMs = 0
  private reads = 0
  private preemptBefore = -1
  private preemptMs = 0

  /** The next reading is preempted for `ms` before its `index`th read (0, 1 or 2). */
  preempt(index: number, ms: number): void {
    this.reads = 0
    this.preemptBefore = index
    this.preemptMs = ms
  }

  monotonic(): number {
    this.tick()
    return this.trueMs
  }

  get wallOffsetMs(): number {
    return 1.7e12 + this.wallStepMs
  }

  wall(): number {
    this.tick()
    return this.trueMs + this.wallOffsetMs
  }

  private tick(): void {
    if (this.reads++ === this.preemptBefore) this.trueMs += this.preemptMs
    this.trueMs += 0.001
  }
}
