import { describe, expect, it } from 'vitest'
import { flood, pingPong } from '../../../../test-support/explore-protocols.js'
import { explore, replay } from '../../src/explore/index.js'
import { broadcasts, configurations, once, quiet } from './support/configurations.js'
import { type AnyFactory, ids, launch, mutex } from './support/scenarios.js'

describe('explore, stateful: the same verdicts as stateless, in fewer executions', () => {
  for (const [name, scenario, options] of configurations) {
    it(name, () => {
      // Against the sleep sets alone, the reduction the stateful search uses too.
      const stateless = explore(scenario, { ...options, stateful: false, reduction: 'sleep' })
      const stateful = explore(scenario, options)
      expect(stateless.mode).toBe('stateless')
      expect(stateful.mode).toBe('stateful')
      expect(stateful.counterexample === undefined, 'same verdict').toBe(
        stateless.counterexample === undefined,
      )
      if (stateful.counterexample !== undefined) {
        // Its schedule replays to a violation too.
        expect(replay(scenario, stateful.counterexample.schedule).violation).toBeDefined()
        return
      }
      expect(stateless.exhausted && stateful.exhausted).toBe(true)
      // Every terminal state is reached (the default history keeps each node's events).
      expect(stateful.terminalStates).toBe(stateless.terminalStates)
      expect(stateful.schedules).toBeLessThanOrEqual(stateless.schedules)
      expect(stateful.executions).toBeLessThanOrEqual(stateless.executions)
      expect(stateful.states).toBeLessThanOrEqual(stateless.states)
      expect(stateful.steps).toBeLessThanOrEqual(stateless.steps)
    })
  }

  it('saves schedules where orderings meet again', () => {
    for (const scenario of [broadcasts(3, 1), once(4, flood(true)), mutex(3, true)]) {
      const stateless = explore(scenario, { stateful: false, reduction: 'sleep' })
      const stateful = explore(scenario)
      expect(stateful.executions).toBeLessThan(stateless.executions)
      expect(stateful.steps).toBeLessThan(stateless.steps)
    }
  })

  it('merges more with a history that keeps only what the invariant needs', () => {
    const scenario = broadcasts(3, 1)
    const full = explore(scenario)
    const lean = explore({ ...scenario, history: () => null })
    expect(lean.exhausted).toBe(true)
    expect(lean.states).toBeLessThan(full.states)
  })

  it('runs stateless when a protocol has no snapshot, or when told to', () => {
    const bare: AnyFactory = (self) => {
      const { snapshot: _, ...rest } = pingPong(1)(self)
      return rest
    }
    expect(explore({ setup: launch(ids(3), bare), invariant: quiet }).mode).toBe('stateless')
    const told = explore(
      { setup: launch(ids(3), pingPong(1)), invariant: quiet },
      { stateful: false },
    )
    expect(told.mode).toBe('stateless')
  })

  it('keeps its bounds: maxSchedules stops it unexhausted, depth cuts', () => {
    const scenario = broadcasts(3, 1)
    const capped = explore(scenario, { maxSchedules: 3 })
    expect(capped.exhausted).toBe(false)
    expect(capped.schedules).toBe(3)
    expect(explore(scenario, { depth: 2 }).cutByDepth).toBeGreaterThan(0)
    const few = explore(scenario, { maxStates: 10 })
    expect(few.exhausted).toBe(false)
    expect(few.states).toBe(10)
  })
})

describe('explore, stateful: progress', () => {
  it('reports the counts every progressEvery states, and not past the search', () => {
    const scenario = broadcasts(3, 1)
    const total = explore(scenario).states
    const seen: number[] = []
    const result = explore(scenario, {
      progressEvery: 10,
      onProgress: (r) => seen.push(r.states),
    })
    expect(result.states).toBe(total)
    expect(seen.length).toBe(Math.floor(total / 10))
    expect(seen.every((states, i) => states === 10 * (i + 1))).toBe(true)
  })

  it('refuses a progressEvery that is not a whole number above 0', () => {
    for (const progressEvery of [0, -5, 2.5, Number.NaN])
      expect(() => explore(broadcasts(3, 1), { progressEvery })).toThrow(/progressEvery/)
  })
})
