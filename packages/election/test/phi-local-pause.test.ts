/**
 * Phi accrual's `localPauseMs`: a check that runs long after phi crossed the threshold means the
 * watching node itself was paused, with heartbeats perhaps queued behind the check; the silence it
 * did not listen through is not held against the peer (once per heartbeat).
 */
import { describe, expect, it } from 'vitest'
import { heartbeatSettings, LeaderWatch } from '../src/detector/heartbeat.js'
import { PhiAccrual, phiSettings, silenceForPhi } from '../src/detector/phi-accrual.js'
import { type PhiEvent, phiAccrual } from '../src/detector/phi-watch.js'
import { InvalidArgumentError } from '../src/index.js'
import { heardEvery, stubCtx } from './support/stub-ctx.js'

const settings = phiSettings({ minStdDevMs: 5, localPauseMs: 10 })

/** Regular heartbeats every 100 ms up to 4,900; the reading at which phi reaches 8. */
function regular(s = settings) {
  const a = new PhiAccrual(s)
  for (let t = 0; t < 5000; t += 100) a.heartbeat(t)
  const { mean, stdDev } = a.distribution()
  return { a, crossing: 4900 + silenceForPhi(8, mean, stdDev) }
}

describe('phi accrual: localPauseMs', () => {
  it('a check on time suspects; one far past the crossing is excused once, then suspects', () => {
    expect(regular().a.check(8, regular().crossing - 1)).toBe('not yet')
    expect(regular().a.check(8, regular().crossing + 5)).toBe('suspect')
    const { a, crossing } = regular()
    expect(a.check(8, crossing + 200)).toBe('excused')
    // The 200 ms are off the peer's account: phi is back at the threshold, one look later it
    // suspects (the excuse is spent until the next heartbeat).
    expect(a.msUntil(8, crossing + 200)).toBeLessThan(1)
    expect(a.check(8, crossing + 201)).toBe('suspect')
    expect(a.check(8, crossing + 900)).toBe('suspect')
  })

  it('a heartbeat renews the excuse; none before the first heartbeat; none by default', () => {
    const { a, crossing } = regular()
    expect(a.check(8, crossing + 200)).toBe('excused')
    a.heartbeat(crossing + 201)
    expect(a.check(8, crossing + 201 + 2000)).toBe('excused')
    const fresh = new PhiAccrual(settings)
    fresh.reset(0)
    expect(fresh.check(8, 5000)).toBe('suspect')
    const byDefault = regular(phiSettings({ minStdDevMs: 5 }))
    expect(byDefault.a.check(8, byDefault.crossing + 200)).toBe('suspect')
  })

  it('is a number >= 0', () => {
    expect(() => phiSettings({ localPauseMs: -1 })).toThrow(InvalidArgumentError)
    expect(() => phiSettings({ localPauseMs: Number.NaN })).toThrow(/localPauseMs/)
    expect(phiSettings({ localPauseMs: 0 }).localPauseMs).toBe(0)
  })
})

/**
 * A follower's leader watch on phi (heartbeats every 25 ms, suspicion about 256 ms into a
 * silence), paused for 300 ms while the leader goes on. An event loop resumes with its late timers
 * before the datagrams that came meanwhile: the silence timer runs first, then the heartbeats.
 */
function pausedFollower(localPauseMs?: number) {
  const phi = {
    threshold: 8,
    acceptablePauseMs: 100,
    ...(localPauseMs !== undefined && { localPauseMs }),
  }
  const watch = new LeaderWatch(
    heartbeatSettings({ intervalMs: 25, timeoutMs: 500, detector: { phi } }),
  )
  const ctx = stubCtx(1, [2])
  watch.follow(ctx)
  heardEvery(watch, ctx, 25, 2000)
  const due = ctx.timers.get('heartbeat:silence')!
  ctx.clock = 2300 // the pause ends: the timer came due during it, and runs first
  const verdict = watch.onTimer('heartbeat:silence', ctx)
  return { due, verdict, next: ctx.timers.get('heartbeat:silence')! - ctx.clock }
}

describe('a leader watch on phi: a paused follower', () => {
  it('without localPauseMs, takes its own pause for the leader’s silence', () => {
    const { due, verdict } = pausedFollower()
    expect(due).toBeLessThan(2300)
    expect(verdict).toBe('suspect')
  })

  it('with localPauseMs 0, looks again 1 ms later, after the heartbeats that waited', () => {
    const { verdict, next } = pausedFollower(0)
    expect(verdict).toBe('handled')
    expect(next).toBe(1)
  })

  it('phiAccrual (a watch over several peers) looks again too, then suspects', () => {
    const watch = phiAccrual({ minStdDevMs: 5, localPauseMs: 0 })
    const ctx = stubCtx<never, PhiEvent>(1, [2])
    for (let t = 0; t <= 2000; t += 100) {
      ctx.clock = t
      watch.heard(2, ctx)
    }
    const [key] = [...ctx.timers.keys()]
    ctx.clock = ctx.timers.get(key!)! + 200 // paused past the deadline
    watch.onTimer(key!, ctx)
    expect(ctx.emitted).toEqual([])
    expect(ctx.timers.get(key!)! - ctx.clock).toBe(1)
    ctx.clock += 1 // nothing waited: the second look suspects
    watch.onTimer(key!, ctx)
    expect(ctx.emitted.map((e) => e.type)).toEqual(['suspect'])
  })
})
