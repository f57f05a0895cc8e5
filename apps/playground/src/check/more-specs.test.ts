import { cmhOnGraph } from '@sd/deadlock'
import { type NtpSimEvent, ntpSim } from '@sd/timesync'
import type { ProtocolFactory } from '@sd/transport'
import { explore, replay } from '@sd/transport/explore'
import { describe, expect, it } from 'vitest'
import { sd, wrapping } from './broken-variants.js'
import { deadlockScenario, settles } from './deadlock.js'
import { cmhGraphCheck, cmhGraphScenario } from './deadlock-graph.js'
import { defaultsAt } from './spec.js'
import { ntpCheck, ntpScenario, temporalOrderCheck, temporalScenario } from './timesync-more.js'

/** name: its default run's liveness verdict (every one is exhausted, with no violation). */
const SPECS = {
  // Some runs hold a request past the last round within 40 ms: the cycle is then still there.
  'deadlock-centralized': 'not reached within the bound',
  // A younger process may die and restart until the depth bound while the explorer holds the
  // older one's release.
  'deadlock-wait-die': 'not reached within the bound',
  'deadlock-wound-wait': 'holds',
  ntp: 'holds',
  'temporal-order': 'holds',
}

describe('sd check: the specs of the remaining algorithms exhaust their defaults', () => {
  for (const [name, verdict] of Object.entries(SPECS))
    it(`${name}: no violation, liveness ${verdict}`, () => {
      const { code, out } = sd('check', name, '--json')
      expect(code, out).toBe(0)
      const result = JSON.parse(out)
      expect(result).toMatchObject({ scenario: name, search: 'stateful', exhausted: true })
      expect(result.violations).toEqual([])
      expect(result.liveness.map((g: { verdict: string }) => g.verdict)).toEqual([verdict])
    })
})

describe('sd check deadlock-cmh-graph: the algorithm alone on a fixed graph (stateful)', () => {
  it('exhausted at n = 3 and 4, restoring saved states; no violation, no liveness goal', () => {
    const at3 = JSON.parse(sd('check', 'deadlock-cmh-graph', '--n', '3', '--json').out)
    expect(at3).toMatchObject({ search: 'stateful', exhausted: true, violations: [], liveness: [] })
    expect(at3.states).toBe(175)
    expect(at3.executions).toBe(1)
    expect(at3.restores).toBeGreaterThan(0)
    const { code, out } = sd('check', 'deadlock-cmh-graph', '--n', '4', '--json')
    expect(code, out).toBe(0)
    const at4 = JSON.parse(out)
    expect(at4).toMatchObject({ n: 4, search: 'stateful', exhausted: true, violations: [] })
    expect(at4.states).toBeGreaterThan(at3.states)
  })

  it('catches a process that never initiates, and one that leaves the last hop out of its cycle', () => {
    const silent = cmhGraphScenario(4, (waitsFor) => (self) => {
      const inner = cmhOnGraph({ waitsFor })(self)
      return self === 2 ? { ...inner, onRequest() {} } : inner
    })
    const quiet = explore(silent, defaultsAt(cmhGraphCheck, 4))
    expect(quiet.mode).toBe('stateful')
    expect(quiet.counterexample?.message).toBe('process 2 is on a cycle and declared 0 deadlocks')
    const shortened = cmhGraphScenario(4, (waitsFor) =>
      wrapping(cmhOnGraph({ waitsFor }), (ctx) => ({
        emit: (e) => ctx.emit(e.type === 'deadlock' ? { ...e, cycle: e.cycle.slice(0, -1) } : e),
      })),
    )
    const short = explore(shortened, defaultsAt(cmhGraphCheck, 4))
    expect(short.counterexample?.message).toMatch(
      /declared the cycle .*, but \d does not wait for \d/,
    )
    // The shrunk schedule, then virtual-time order: some node declares a cycle cut short.
    expect(replay(shortened, short.counterexample!.shrunk).violation).toMatch(
      /declared the cycle .*, but \d does not wait for \d/,
    )
  })
})

describe('the remaining specs catch broken variants', () => {
  it('deadlock: the manager with no strategy leaves the cycle standing: a deadlock lasso that replays', () => {
    const scenario = deadlockScenario(3, { kind: 'none' }, { endJudged: false })
    const result = explore(
      { ...scenario, liveness: [settles(3, false)] },
      { depth: 150, reduction: false },
    )
    const [goal] = result.liveness!
    expect(goal!.verdict).toBe('lasso')
    expect(goal!.lasso!.kind).toBe('deadlock')
    const end = replay(scenario, goal!.lasso!.schedule, { maxSteps: 0 })
    expect(end.skipped).toEqual([])
    expect(end.net.choices('any-order')).toEqual([])
  })

  it('ntp: a client whose selection keeps the falseticker among its truechimers', () => {
    const trusting: ReturnType<typeof ntpSim> = (self) =>
      rewritingEmits(
        ntpSim({ servers: [1, 2, 3, 4], pollMs: 1000, replyTimeoutMs: 20 }),
        (event: NtpSimEvent): NtpSimEvent =>
          event.type === 'ntp-selection'
            ? {
                ...event,
                truechimers: [...event.truechimers, ...event.falsetickers],
                falsetickers: [],
              }
            : event,
      )(self)
    const result = explore(ntpScenario(5, trusting), defaultsAt(ntpCheck, 5))
    expect(result.counterexample?.message).toMatch(/counts the falseticker 4 among its truechimers/)
  })

  it('temporal-order: members that do not hold messages back (Δ = 0) deliver too early', () => {
    const result = explore(temporalScenario(3, 0), defaultsAt(temporalOrderCheck, 3))
    expect(result.counterexample?.message).toMatch(/before its timestamp .* \+ Δ/)
  })
})

/** `factory` with every event it emits rewritten by `rewrite` (a defect, for the specs to catch). */
function rewritingEmits<Msg, Req, Ev>(
  factory: ProtocolFactory<Msg, Req, Ev>,
  rewrite: (event: Ev) => Ev,
): ProtocolFactory<Msg, Req, Ev> {
  return wrapping(factory, (ctx) => ({ emit: (event) => ctx.emit(rewrite(event)) }))
}
