import { describe, expect, it } from 'vitest'
import { type ExploreScenario, explore, replay } from '../../src/explore/index.js'
import type { Ctx } from '../../src/index.js'

/** Node 1 times 50 ms with a timer and reports the duration as its wall clock and its monotonic clock saw it. */
const stopwatch = (): ExploreScenario['setup'] => (net) => {
  net.launch([1, 2], () => {
    let wall = 0
    let mono = 0
    return {
      start(ctx: Ctx<string, { wall: number; mono: number; at: number }>) {
        if (ctx.self !== 1) return
        wall = ctx.now()
        mono = ctx.monotonic()
        ctx.setTimer('done', 50)
        ctx.send(2, 'hello')
      },
      onMessage() {},
      onTimer(_key: string, ctx: Ctx<string, { wall: number; mono: number; at: number }>) {
        ctx.emit({ wall: ctx.now() - wall, mono: ctx.monotonic() - mono, at: ctx.monotonic() })
      },
    }
  })
}

type Report = { wall: number; mono: number; at: number }
const reports = (events: ReadonlyArray<{ event: Report }>) => events.map((e) => e.event)

describe('explorer faults: pause and clock step', () => {
  it('finds a wall-clock duration broken by an injected clock step, and replays it', () => {
    const scenario: ExploreScenario<Report> = {
      setup: stopwatch(),
      invariant: ({ events }) =>
        reports(events).some((r) => Math.abs(r.wall - 50) > 1e-9)
          ? 'a 50 ms timer measured by the wall clock is not 50 ms'
          : undefined,
    }
    expect(explore(scenario).counterexample).toBeUndefined()
    const result = explore(scenario, { faults: { clockStep: 1 }, clockStepMs: -300 })
    expect(result.counterexample?.shrunk).toBe('step:1@-300')
    expect(replay(scenario, result.counterexample!.shrunk).violation).toBe(
      'a 50 ms timer measured by the wall clock is not 50 ms',
    )
  })

  it('a monotonic duration survives every clock step', () => {
    const scenario: ExploreScenario<Report> = {
      setup: stopwatch(),
      invariant: ({ events }) =>
        reports(events).some((r) => Math.abs(r.mono - 50) > 1e-9) ? 'mono off' : undefined,
    }
    const result = explore(scenario, { faults: { clockStep: 2 }, clockStepMs: 5000 })
    expect(result.counterexample).toBeUndefined()
    expect(result.exhausted).toBe(true)
  })

  it('finds a timer made late by an injected pause; the pause ends by a planned resume', () => {
    const scenario: ExploreScenario<Report> = {
      setup: stopwatch(),
      invariant: ({ events }) =>
        reports(events).some((r) => r.mono > 50 + 1e-9) ? 'the timer fired late' : undefined,
    }
    const result = explore(scenario, { faults: { pause: 1 }, pausable: [1], pauseMs: 80 })
    expect(result.counterexample?.shrunk).toBe('pause:1@80')
    const run = replay(scenario, result.counterexample!.shrunk)
    expect(run.violation).toBe('the timer fired late')
    const kinds = run.net.trace.filter((e) => e.type === 'pause' || e.type === 'resume')
    expect(kinds).toEqual([
      { t: 0, type: 'pause', node: 1 },
      { t: 80, type: 'resume', node: 1, backlog: 1 },
    ])
  })
})

describe('explorer fault settings', () => {
  it('refuses a pause that is not a positive duration, and a clock step of nothing', () => {
    const scenario: ExploreScenario<Report> = { setup: stopwatch(), invariant: () => undefined }
    for (const bad of [
      { pauseMs: 0 },
      { pauseMs: -5 },
      { pauseMs: Number.NaN },
      { clockStepMs: 0 },
    ])
      expect(() => explore(scenario, bad), JSON.stringify(bad)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }),
      )
  })
})
