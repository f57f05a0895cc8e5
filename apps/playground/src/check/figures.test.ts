import type { ExploreResult } from '@sd/transport/explore'
import { expect, it, describe as suite } from 'vitest'
import { comparisonJson, comparisonLines, describe, figuresOf } from './figures.js'

const result = (extra: Partial<ExploreResult> & Record<string, unknown> = {}): ExploreResult => ({
  mode: 'stateful',
  reduction: 'sleep',
  schedules: 4,
  executions: 5,
  exhausted: true,
  states: 10,
  transitions: 14,
  cutByDepth: 0,
  terminalStates: 3,
  steps: 18,
  ...extra,
})

suite('sd check figures', () => {
  it('a figure the explorer gains later is passed through to the JSON and listed in the text', () => {
    const withOrbits = result({ symmetryOrbits: 7, liveness: [] })
    expect(figuresOf(withOrbits)).toMatchObject({ states: 10, symmetryOrbits: 7 })
    expect(figuresOf(withOrbits)).not.toHaveProperty('liveness')
    expect(figuresOf(withOrbits)).not.toHaveProperty('mode')
    const text = describe({
      result: withOrbits,
      options: { faults: { loss: 1 } },
      pct: false,
      elapsedMs: 1000,
    })
    expect(text).toContain('also: symmetryOrbits 7')
    expect(text).toContain('10 states, 14 transitions')
    expect(text).toContain('each global state expanded once; sleep sets)')
    expect(text).toContain('(10 states/s)')
    expect(text).toContain('exhausted within the bounds: every reachable state expanded')
    expect(text).toContain('faults injected per schedule at most: loss 1')
    expect(describe({ result: result(), options: {}, pct: false, elapsedMs: 1 })).not.toContain(
      'also:',
    )
  })

  it('--compare: the ratio stateless / stateful, null with nothing to divide by', () => {
    const stateful = { result: result(), elapsedMs: 5 }
    const stateless = {
      result: result({ mode: 'stateless', transitions: 42, steps: 90, exhausted: false }),
      elapsedMs: 9,
    }
    expect(comparisonJson({ stateful, stateless }).ratio).toEqual({ transitions: 3, steps: 5 })
    const lines = comparisonLines({ stateful, stateless }).join('\n')
    expect(lines).toContain('transitions 3x, steps executed 5x (at least')
    const none = { result: result({ transitions: 0, steps: 0 }), elapsedMs: 1 }
    expect(comparisonJson({ stateful: none, stateless }).ratio).toEqual({
      transitions: null,
      steps: null,
    })
    expect(comparisonLines({ stateful: undefined, stateless }).join('\n')).toContain(
      'stateful: none (a protocol has no snapshot)',
    )
  })
})
