import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { tokenRing as ring } from '@sd/mutex'
import type { ProtocolFactory, TraceDocument } from '@sd/transport'
import { explore, replay } from '@sd/transport/explore'
import { describe, expect, it } from 'vitest'
import { sd, sdWith, wrapping } from './broken-variants.js'
import { checks } from './index.js'
import { DEADLOCK } from './lasso-marks.js'
import { TOKEN_RING, tokenRingCheck, tokenRingScenario } from './mutex-token-ring.js'
import type { CheckSpec } from './spec.js'

/** `factory` whose timers named in `keys` are never set (a defect, for the specs to catch). */
function withoutTimers<Msg, Req, Ev>(
  factory: ProtocolFactory<Msg, Req, Ev>,
  keys: readonly string[],
): ProtocolFactory<Msg, Req, Ev> {
  return wrapping(factory, (ctx) => ({
    setTimer: (key, ms) => {
      if (!keys.includes(key)) ctx.setTimer(key, ms)
    },
  }))
}

/** The token ring that neither resends a pass (no `ack` timer) nor regenerates a lost token. */
const noResend = withoutTimers(ring(TOKEN_RING), ['ack', 'lost'])
const noResendCheck: CheckSpec = {
  ...tokenRingCheck,
  scenario: 'mutex-token-ring-no-resend',
  build: (n) => tokenRingScenario(n, noResend),
}

describe('sd check: the liveness goals of the specs and their verdicts', () => {
  /** name (default run): the verdict of its one goal. */
  const VERDICTS = {
    'causal-order': 'holds',
    'election-chang-roberts': 'holds',
    cristian: 'holds',
    berkeley: 'holds',
    // Runs where the explorer holds a message while timers fire stop at 10 ms unserved.
    'mutex-token-ring': 'not reached within the bound',
    // Bounded by maxSchedules: no lasso among the states expanded, nothing more.
    'election-ring': 'search incomplete',
  }
  for (const [name, verdict] of Object.entries(VERDICTS))
    it(`${name}: ${verdict}`, () => {
      const { code, out } = sd('check', name, '--json')
      expect(code, out).toBe(0)
      const result = JSON.parse(out)
      expect(result.search).toBe('stateful')
      // Liveness needs the whole state graph: no sleep sets.
      expect(result.reduction).toBe('none')
      expect(result.liveness).toHaveLength(1)
      expect(result.liveness[0]).toMatchObject({ verdict })
      expect(result.liveness[0].lasso).toBeUndefined()
    })

  it('deadlock-cmh at n = 3 (exhausted): every process finishes or is aborted', () => {
    const result = JSON.parse(sd('check', 'deadlock-cmh', '--n', '3', '--json').out)
    expect(result).toMatchObject({ exhausted: true, violations: [] })
    expect(result.liveness[0].verdict).toBe('holds')
  })

  it('the text names each goal with its verdict', () => {
    const { out } = sd('check', 'election-chang-roberts')
    expect(out).toContain('liveness (fair runs')
    expect(out).toMatch(/the election ends: every live node follows node 4 in one term: holds/)
  })

  it('--no-liveness: the safety search alone, with its sleep sets', () => {
    const result = JSON.parse(sd('check', 'causal-order', '--no-liveness', '--json').out)
    expect(result).toMatchObject({ reduction: 'sleep', liveness: [], exhausted: true })
  })

  it('every spec with goals names them in its --help', () => {
    for (const spec of checks.filter((c) => c.liveness !== undefined)) {
      const help = sd('check', spec.scenario, '--help').out.replace(/\s+/g, ' ')
      for (const goal of spec.liveness!(spec.defaultN)) expect(help).toContain(goal.name)
    }
  })
})

describe('sd check mutex-token-ring: a ring that neither resends nor regenerates is caught by its liveness goal', () => {
  it('one lost pass loses the token for good: a deadlock lasso, exit 1, printed with its replay', () => {
    const { code, out } = sdWith([noResendCheck], 'mutex-token-ring-no-resend')
    expect(code, out).toBe(1)
    expect(out).toContain('invariant held in every schedule explored')
    expect(out).toMatch(/every request is served: .*: LASSO/)
    expect(out).toMatch(/never holds: nothing is left to happen after \d+ steps/)
    expect(out).toMatch(/ {4}prefix: .*drop:m:1>2/)
    expect(out).toContain('loop:   (none: a deadlock')
    expect(out).toMatch(/replay: sd check mutex-token-ring-no-resend --n 3 --replay '.+'/)
  })

  it('the lasso replays (--replay): nothing left to happen, a request unserved', () => {
    const scenario = noResendCheck.build(3)
    const result = explore(
      { ...scenario, liveness: noResendCheck.liveness!(3) },
      tokenRingCheck.defaults as object,
    )
    const lasso = result.liveness![0]!.lasso!
    expect(lasso.kind).toBe('deadlock')
    const end = replay(scenario, lasso.schedule, { maxSteps: 0 })
    expect(end.skipped).toEqual([])
    expect(end.net.choices('any-order')).toEqual([])
    const { code, out } = sdWith(
      [noResendCheck],
      'mutex-token-ring-no-resend',
      '--replay',
      lasso.schedule,
      '--json',
    )
    expect(code, out).toBe(0)
    const replayed = JSON.parse(out)
    expect(replayed).toMatchObject({ skipped: [], violations: [] })
    expect(replayed.liveness[0].holds).toBe(false)
  })

  it('--trace: the replayed deadlock carries one mark, at its end', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sd-token-ring-lasso-'))
    try {
      const file = join(dir, 'lasso.json')
      const { code } = sdWith([noResendCheck], 'mutex-token-ring-no-resend', '--trace', file)
      expect(code).toBe(1)
      const { events } = JSON.parse(readFileSync(file, 'utf8')) as TraceDocument
      const marks = events.flatMap((e, i) => (e.type === 'mark' ? [{ i, label: e.label }] : []))
      expect(marks).toEqual([{ i: events.length - 1, label: DEADLOCK }])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('--json gives the lasso, its verdict and its replay command', () => {
    const { code, out } = sdWith([noResendCheck], 'mutex-token-ring-no-resend', '--json')
    expect(code).toBe(1)
    const [goal] = JSON.parse(out).liveness
    expect(goal.verdict).toBe('lasso')
    expect(goal.lasso).toMatchObject({ kind: 'deadlock', loop: '' })
    expect(goal.replay).toContain('--replay')
  })
})

describe('sd check --compare: the safety search both ways on the same bounds', () => {
  it('causal-order at n = 3: both exhausted, the same terminal states, and their ratio', () => {
    const { code, out } = sd('check', 'causal-order', '--compare', '--json')
    expect(code, out).toBe(0)
    const { compare } = JSON.parse(out)
    expect(compare.stateful).toMatchObject({ exhausted: true })
    expect(compare.stateless).toMatchObject({ exhausted: true })
    expect(compare.stateless.terminalStates).toBe(compare.stateful.terminalStates)
    expect(compare.ratio.transitions).toBeGreaterThan(1)
    const text = sd('check', 'causal-order', '--n', '2', '--compare').out
    expect(text).toMatch(/compare: stateless \/ stateful: transitions [\d.]+x/)
  })

  it('is refused with --pct', () => {
    expect(sd('check', 'causal-order', '--compare', '--pct', '3').code).toBe(2)
  })
})
