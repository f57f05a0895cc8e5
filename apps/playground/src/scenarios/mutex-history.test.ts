/**
 * Every mutex scenario's run judged a second way: its lock history, made from the trace alone by
 * `lockHistoryFromTrace` of `@sd/mutex`, against the linearizability checker's lock model. It
 * agrees with `checkMutualExclusion`: linearizable wherever mutual exclusion held (a node crashed
 * or not), and for mutex-quorum, whose finding is two holders, not linearizable, with the two
 * overlapping grants as its minimal sub-history.
 */
import { lockHistoryFromTrace } from '@sd/mutex'
import { checkHistory, lockModel } from '@sd/transport/history'
import { describe, expect, it } from 'vitest'
import { scenarios } from './index.js'

const lock = lockModel({ strayRelease: 'ignore' })
const mutexScenarios = scenarios.filter((s) => s.name.startsWith('mutex-'))

describe('the mutex scenarios as lock histories', () => {
  it('covers every mutex scenario', () => {
    expect(mutexScenarios.map((s) => s.name).sort()).toEqual([
      'mutex-centralized',
      'mutex-lamport',
      'mutex-maekawa',
      'mutex-quorum',
      'mutex-ricart-agrawala',
      'mutex-token-ring',
    ])
  })

  it.each(mutexScenarios.map((s) => [s.name, s] as const))('%s', (name, scenario) => {
    for (const seed of [1, 2])
      for (const crash of [[], [2]]) {
        const run = scenario.run({ n: scenario.defaultN, seed, crash })
        const history = lockHistoryFromTrace(run.net.trace)
        expect(history.length).toBeGreaterThan(0)
        const r = checkHistory(lock, history)
        if (name !== 'mutex-quorum') {
          expect(run.violations).toEqual([])
          expect(r.verdict, `${name} seed ${seed} crash ${crash}`).toBe('linearizable')
          continue
        }
        expect(String(run.result.finding)).toContain('while 6 held it')
        expect(r.verdict).toBe('not-linearizable')
        if (r.verdict !== 'not-linearizable') continue
        expect(r.minimal).toBe(true)
        // The two holdings: each grant with its release (shrinking keeps a holding whole).
        const grants = r.counterexample.filter((o) => o.input.f === 'acquire')
        expect(grants.map((o) => o.client)).toEqual([6, 7])
        for (const o of r.counterexample)
          if (o.input.f === 'release') expect([6, 7]).toContain(o.client)
      }
  })
})
