import { describe, expect, it } from 'vitest'
import { countHistory, historyViolations, type Operation } from '../src/history.js'
import { formatRound, parseJepsenArgs, roundReport, totalsOf } from '../src/jepsen.js'
import type { Summary } from '../src/summary.js'

const op = (f: Operation['f'], outcome: Operation['outcome'], value?: number): Operation => ({
  node: 'n1',
  pid: 1,
  op: 1,
  f,
  ...(value === undefined ? {} : { value }),
  invokedAt: 0,
  ...(outcome === 'info' ? {} : { completedAt: 1 }),
  outcome,
})

describe('the history against the register', () => {
  const history = [
    op('acquire', 'ok'),
    op('read', 'ok', 0),
    op('write', 'ok', 1),
    op('write', 'ok', 2),
    op('write', 'fail', 2),
    op('write', 'info', 3),
    op('release', 'ok'),
  ]

  it('counts operations by outcome', () => {
    expect(countHistory(history)).toEqual({
      total: 7,
      ok: 5,
      fail: 1,
      info: 1,
      okByKind: { acquire: 1, read: 1, write: 2, release: 1 },
      indeterminateWrites: 1,
    })
  })

  it('accepts a counter between the acknowledged writes and those plus the indeterminate ones', () => {
    expect(historyViolations(history, 2)).toEqual([])
    expect(historyViolations(history, 3)).toEqual([])
  })

  it('finds a lost acknowledged increment and an invented one', () => {
    expect(historyViolations(history, 1)).toEqual([
      'counter 1 lost increments: 2 writes were acknowledged to the nodes',
    ])
    expect(historyViolations(history, 4)).toEqual([
      'counter 4 is above the 2 acknowledged and 1 indeterminate writes',
    ])
  })
})

describe('jepsen arguments and report', () => {
  it('defaults to 10 rounds of 30 s of 5 nodes under every fault, shuffled', () => {
    const o = parseJepsenArgs([], () => 0.5)
    expect(o.rounds).toBe(10)
    expect(o.run).toMatchObject({ n: 5, seconds: 30, faultMs: 3000, shuffle: true, rounds: 0 })
    expect(o.nemesis).toContain('clock-step')
    expect(o.run.chaos).toEqual(o.nemesis)
  })

  it('takes rounds, nemesis, out and the run options; refuses what it does not take', () => {
    const o = parseJepsenArgs(
      ['--', '--rounds', '2', '--nemesis', 'kill-leader,clock-step', '--n', '3', '--out=x'],
      () => 0,
    )
    expect(o).toMatchObject({ rounds: 2, nemesis: ['kill-leader', 'clock-step'], out: 'x' })
    expect(o.run.n).toBe(3)
    expect(() => parseJepsenArgs(['--rounds', '0'])).toThrow('--rounds must be in 1..100')
    expect(() => parseJepsenArgs(['--nemesis', 'none'])).toThrow('at least one fault')
    expect(() => parseJepsenArgs(['--chaos', 'all'])).toThrow('not an option of jepsen')
    expect(() => parseJepsenArgs(['--nemesis', 'nap'])).toThrow('unknown fault')
  })

  it('adds the rounds up; a violation found again in the trace fails the round', () => {
    const summary = {
      ok: true,
      mode: 'netns',
      operations: countHistory([op('write', 'ok', 1)]),
      counter: 1,
      acknowledged: 1,
      fencingRejections: 0,
      chaos: [
        { kind: 'kill-leader', atMs: 1, targets: ['n1'] },
        { kind: 'partition', targets: [], skipped: 'not enough time left' },
      ],
      failovers: [{}],
      lockRecoveryMs: [1500],
      linearizability: [
        { model: 'register', verdict: 'linearizable', operations: 1, steps: 1, checkMs: 0.1 },
        { model: 'lock', verdict: 'unknown', operations: 0, steps: 0, checkMs: 0 },
      ],
      violations: [],
      errors: [],
    } as unknown as Summary
    const a = roundReport(1, 7, summary, [])
    expect(formatRound(a)).toMatch(/; register linearizable, lock unknown$/)
    const b = roundReport(2, 8, summary, ['lock: two holders'])
    expect(a).toMatchObject({ ok: true, faults: { 'kill-leader': 1 }, failovers: 1 })
    expect(b.ok).toBe(false)
    expect(totalsOf([a, b])).toEqual({
      operations: 2,
      okOperations: 2,
      faults: 2,
      failovers: 2,
      lockRecoveries: 2,
      violations: 1,
      errors: 0,
    })
  })
})
