import { InvalidArgumentError, type NodeId, type ProtocolFactory } from '@sd/transport'
import { ofType, runInSim } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { bully } from '../src/bully/index.js'
import { changRoberts } from '../src/chang-roberts/index.js'
import type { ElectionEvent, ElectionRequest } from '../src/contract.js'
import { heartbeatSettings, LeaderWatch } from '../src/detector/heartbeat.js'
import { PhiAccrual, phiOf, phiSettings, silenceForPhi } from '../src/detector/phi-accrual.js'
import { phiAccrual } from '../src/detector/phi-watch.js'
import { ringElection } from '../src/ring/index.js'
import { heardEvery, stubCtx } from './support/stub-ctx.js'

const settings = phiSettings({ minStdDevMs: 5, firstHeartbeatEstimateMs: 100 })

/** An accrual fed heartbeats at these readings. */
function fed(times: number[], s = settings): PhiAccrual {
  const a = new PhiAccrual(s)
  for (const t of times) a.heartbeat(t)
  return a
}

describe('phi accrual: the arithmetic', () => {
  it('phi rises with silence, strictly, from near 0 to past the threshold', () => {
    const a = fed(Array.from({ length: 50 }, (_, i) => i * 100)) // regular, every 100 ms
    const last = 49 * 100
    const phis = [0, 50, 100, 110, 120, 150, 300].map((ms) => a.phi(last + ms))
    for (let i = 1; i < phis.length; i++) expect(phis[i]).toBeGreaterThan(phis[i - 1]!)
    expect(phis[0]).toBeLessThan(0.01)
    expect(phis[2]).toBeCloseTo(Math.log10(2), 2) // at the mean: P(later) = 1/2
    expect(phis.at(-1)).toBeGreaterThan(8)
    expect(Number.isFinite(a.phi(last + 1e9))).toBe(true) // a huge silence: large, not Infinity
  })

  it('a regular stream keeps phi low at every arrival, a jittery one tolerates more silence', () => {
    const regular = new PhiAccrual(settings)
    for (let i = 0; i < 300; i++) {
      const t = i * 100
      expect(regular.phi(t)).toBeLessThan(1) // just before the beat is recorded
      regular.heartbeat(t)
    }
    // Same mean (100), deviation about 30: phi at 150 ms of silence is far lower.
    const jitter = fed(Array.from({ length: 100 }, (_, i) => i * 100 + (i % 2 === 0 ? 0 : 30)))
    const calm = fed(Array.from({ length: 100 }, (_, i) => i * 100))
    const lastJ = 99 * 100 + 30
    expect(jitter.phi(lastJ + 150)).toBeLessThan(calm.phi(99 * 100 + 150))
  })

  it('the window is bounded and forgets the oldest interval', () => {
    const small = phiSettings({ windowSize: 5, minStdDevMs: 1 })
    const a = fed([0, 1000, 2000, 2010, 2020, 2030, 2040], small)
    expect(a.window()).toEqual([1000, 10, 10, 10, 10]) // 6 intervals heard, 5 kept
    a.heartbeat(2050)
    expect(a.window()).toEqual([10, 10, 10, 10, 10])
    // Only the recent rhythm counts now: 100 ms of silence is a long one.
    expect(a.phi(2050 + 100)).toBeGreaterThan(8)
  })

  it('the acceptable pause shifts the curve by exactly that much', () => {
    const plain = fed([0, 100, 200, 300])
    const lenient = fed([0, 100, 200, 300], phiSettings({ ...settings, acceptablePauseMs: 400 }))
    expect(lenient.phi(300 + 450)).toBeCloseTo(plain.phi(300 + 50), 9)
  })

  it('before any interval, the first estimate stands in; before anything, phi is 0', () => {
    const a = new PhiAccrual(settings)
    expect(a.phi(1e6)).toBe(0)
    a.reset(0)
    expect(a.distribution()).toEqual({ mean: 100, stdDev: 25 })
    expect(a.phi(100)).toBeCloseTo(Math.log10(2), 3)
  })

  it('silenceForPhi inverts phiOf', () => {
    for (const threshold of [0.5, 1, 3, 8, 12, 16]) {
      for (const [mean, sd] of [
        [100, 5],
        [1000, 200],
        [50, 50],
      ] as const) {
        const t = silenceForPhi(threshold, mean, sd)
        expect(phiOf(t, mean, sd)).toBeCloseTo(threshold, 6)
      }
    }
  })

  it('options are checked', () => {
    expect(phiSettings()).toEqual({
      threshold: 8,
      windowSize: 200,
      minStdDevMs: 25,
      acceptablePauseMs: 0,
      firstHeartbeatEstimateMs: 100,
      localPauseMs: Number.POSITIVE_INFINITY,
    })
    expect(() => phiSettings({ threshold: 0 })).toThrow(InvalidArgumentError)
    expect(() => phiSettings({ windowSize: 2.5 })).toThrow(/integer/)
    expect(() => phiSettings({ minStdDevMs: -1 })).toThrow(/minStdDevMs/)
    expect(() => phiSettings({ acceptablePauseMs: Number.NaN })).toThrow(/acceptablePauseMs/)
    expect(phiSettings({ acceptablePauseMs: 0 }).acceptablePauseMs).toBe(0)
  })
})

describe('phi accrual: the watch a protocol drives', () => {
  it('suspects after silence with phi and last heard, and says alive when heard again', () => {
    const watch = phiAccrual({ minStdDevMs: 5, firstHeartbeatEstimateMs: 100 })
    const ctx = stubCtx(1, [2])
    const timers = ctx.timers
    for (let t = 0; t <= 1000; t += 100) {
      ctx.clock = t
      watch.heard(2, ctx)
    }
    const due = timers.get('phi:2')!
    expect(due).toBeGreaterThan(1000 + 100) // set for when phi crosses 8, not polled
    ctx.clock = due
    expect(watch.onTimer('phi:2', ctx)).toBe(true)
    const suspect = ctx.emitted[0] as { type: string; phi: number; lastHeardMs: number }
    expect(suspect).toMatchObject({ type: 'suspect', node: 2, lastHeardMs: 1000 })
    expect(suspect.phi).toBeGreaterThanOrEqual(8)
    expect(watch.isSuspected(2)).toBe(true)
    ctx.clock = due + 10
    watch.heard(2, ctx)
    expect(ctx.emitted[1]).toEqual({ type: 'alive', node: 2 })
    expect(watch.onTimer('other', ctx)).toBe(false)
  })
})

describe('the leader watch takes phi accrual through HeartbeatOptions', () => {
  it('heartbeatSettings fills phi in from the heartbeat, and refuses a bad detector', () => {
    expect(heartbeatSettings({ detector: 'timeout' })).toEqual({ intervalMs: 100, timeoutMs: 500 })
    const s = heartbeatSettings({ intervalMs: 50, timeoutMs: 200, detector: { phi: {} } })
    expect(s.detector?.phi).toMatchObject({ firstHeartbeatEstimateMs: 50, acceptablePauseMs: 150 })
    expect(() => heartbeatSettings({ detector: 'phi' as never })).toThrow(InvalidArgumentError)
    expect(() => heartbeatSettings({ detector: { phi: null as never } })).toThrow(/detector/)
    expect(() => heartbeatSettings({ detector: { phi: { threshold: -1 } } })).toThrow(/threshold/)
  })

  it('a follower suspects a leader later than the timeout would, and not before phi is due', () => {
    const watch = new LeaderWatch(heartbeatSettings({ detector: { phi: { minStdDevMs: 10 } } }))
    const ctx = stubCtx(1, [2])
    watch.follow(ctx)
    heardEvery(watch, ctx, 100, 2000)
    const due = ctx.timers.get('heartbeat:silence')!
    // Mean 100 + acceptable pause 400 = the timeout; phi 8 a few deviations past it.
    expect(due).toBeGreaterThan(2000 + 500)
    expect(due).toBeLessThan(2000 + 600)
    ctx.clock = due - 20
    expect(watch.onTimer('heartbeat:silence', ctx)).toBe('handled') // early: re-armed
    ctx.clock = due
    expect(watch.onTimer('heartbeat:silence', ctx)).toBe('suspect')
    expect(watch.snapshot().phi?.intervals).toHaveLength(20)
  })

  const heartbeat = { intervalMs: 50, timeoutMs: 200, detector: { phi: {} } } as const
  it.each([
    ['bully', bully({ heartbeat })],
    ['ring', ringElection({ heartbeat })],
    ['chang-roberts', changRoberts({ heartbeat })],
  ] as const)(
    '%s elects, and fails over after a crash, with phi accrual watching the leader',
    (_name, factory) => {
      const ids: NodeId[] = [1, 2, 3, 4]
      const { events } = runInSim(
        ids,
        factory as ProtocolFactory<unknown, ElectionRequest, ElectionEvent>,
        {
          seed: 3,
          net: { latency: { kind: 'uniform', min: 1, max: 5 } },
          until: 4000,
          plan: (net, group) => {
            group.request(1, { type: 'start' })
            net.at(1500, () => net.crash(4))
          },
        },
      )
      const leaders = ofType(events, 'leader')
      expect(leaders.some((e) => e.t < 1500 && e.event.leader === 4)).toBe(true)
      const after = leaders.filter((e) => e.t > 1500)
      expect(new Set(after.map((e) => e.node))).toEqual(new Set([1, 2, 3]))
      expect(after.every((e) => e.event.leader === 3)).toBe(true)
      expect(Math.max(...after.map((e) => e.t)) - 1500).toBeLessThan(2000)
    },
  )
})
