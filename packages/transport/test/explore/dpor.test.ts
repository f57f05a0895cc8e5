import { describe, expect, it } from 'vitest'
import { hashKey } from '../../src/canonical.js'
import { exploreExhaustive } from '../../src/explore/dfs.js'
import { exploreDpor } from '../../src/explore/dpor.js'
import {
  type ExploreOptions,
  type ExploreScenario,
  explore,
  replay,
} from '../../src/explore/index.js'
import type { NodeId, Protocol } from '../../src/index.js'
import { configurations } from './support/configurations.js'
import { causal, mutex } from './support/scenarios.js'

/** Both stateless searches, with the fingerprints of the terminal states each reached. */
const both = (scenario: ExploreScenario, options: ExploreOptions = {}) => {
  const opts = { ...options, stateful: false }
  const sleepEnds = new Set<string>()
  const dporEnds = new Set<string>()
  const sleep = exploreExhaustive(scenario, { ...opts, reduction: 'sleep' }, (f) =>
    sleepEnds.add(f),
  )
  const dpor = exploreDpor(scenario, opts, (f) => dporEnds.add(f))
  return { sleep, dpor, sleepEnds, dporEnds }
}

/**
 * A seeded spec some runs break: a node whose own events so far hash to 0 mod `m`. It reads one
 * node's events at a time, so reordering independent events cannot hide a violation.
 */
const seeded =
  (scenario: ExploreScenario, nodes: readonly NodeId[], seed: number, m: number) =>
  (state: Parameters<ExploreScenario['invariant']>[0]) =>
    scenario.invariant(state) ??
    nodes
      .map((node) =>
        state.events
          .filter((e) => e.node === node)
          .map((e) => JSON.stringify(e.event))
          .join(','),
      )
      .map((seen, i) =>
        seen !== '' && Number.parseInt(hashKey(`${seed}|${i}|${seen}`).slice(0, 6), 16) % m === 0
          ? `node ${nodes[i]} saw ${seen}`
          : undefined,
      )
      .find((v) => v !== undefined)

describe('explore, stateless: source-set DPOR against sleep sets alone', () => {
  for (const [name, scenario, options] of configurations) {
    it(`${name}: the same verdict and terminal states, no more schedules`, () => {
      const { sleep, dpor, sleepEnds, dporEnds } = both(scenario, options)
      expect(sleep.reduction).toBe('sleep')
      expect(dpor.reduction).toBe('dpor')
      expect(dpor.counterexample === undefined, 'same verdict').toBe(
        sleep.counterexample === undefined,
      )
      if (dpor.counterexample !== undefined) {
        expect(replay(scenario, dpor.counterexample.schedule).violation).toBeDefined()
        return
      }
      expect(sleep.exhausted && dpor.exhausted).toBe(true)
      expect([...dporEnds].sort()).toEqual([...sleepEnds].sort())
      expect(dpor.terminalStates).toBe(sleep.terminalStates)
      expect(dpor.schedules).toBeLessThanOrEqual(sleep.schedules)
      expect(dpor.executions).toBeLessThanOrEqual(sleep.executions)
      expect(dpor.states).toBeLessThanOrEqual(sleep.states)
    })
  }

  it('finds a violation exactly when sleep sets do, over seeded broken specs', () => {
    let found = 0
    let clean = 0
    for (const [name, scenario, options] of configurations) {
      if (name.includes('one crash') || name.includes('vector broadcast, 3')) continue // slow
      const nodes = name.includes('4 nodes') ? [1, 2, 3, 4] : [1, 2, 3]
      for (let seed = 1; seed <= 6; seed++) {
        const broken = { ...scenario, invariant: seeded(scenario, nodes, seed, 7) }
        const { sleep, dpor } = both(broken, options)
        expect(dpor.counterexample === undefined, `${name}, seed ${seed}`).toBe(
          sleep.counterexample === undefined,
        )
        if (dpor.counterexample === undefined) clean++
        else {
          found++
          expect(replay(broken, dpor.counterexample.schedule).violation).toBeDefined()
        }
      }
    }
    // Both kinds occur: the comparison says something.
    expect(found).toBeGreaterThan(10)
    expect(clean).toBeGreaterThan(10)
  })

  it('keeps every state within a depth bound', () => {
    let cut = 0
    for (const [name, scenario, options] of configurations) {
      if (name.includes('one crash')) continue // slow
      const { sleep, dpor, sleepEnds, dporEnds } = both(scenario, { ...options, depth: 3 })
      expect(dpor.counterexample === undefined, name).toBe(sleep.counterexample === undefined)
      if (sleep.counterexample !== undefined) continue
      if (dpor.cutByDepth > 0) cut++
      expect([...dporEnds].sort(), name).toEqual([...sleepEnds].sort())
    }
    expect(cut).toBeGreaterThan(5)
  })

  it('runs fewer executions where sleep sets start orderings only to find them asleep', () => {
    for (const scenario of [causal(false), mutex(3, true)]) {
      const { sleep, dpor } = both(scenario)
      expect(dpor.executions).toBeLessThan(sleep.executions)
      expect(dpor.states).toBeLessThan(sleep.states)
    }
  })

  it('is what explore runs when stateless, unless told sleep or false', () => {
    const scenario = causal(false)
    expect(explore(scenario, { stateful: false }).reduction).toBe('dpor')
    expect(explore(scenario, { stateful: false, reduction: 'sleep' }).reduction).toBe('sleep')
    expect(explore(scenario, { stateful: false, reduction: false }).reduction).toBe('none')
    expect(explore(scenario).reduction).toBe('sleep')
    expect(explore(scenario, { reduction: 'dpor' })).toMatchObject({
      mode: 'stateful',
      reduction: 'sleep',
    })
  })
})

describe('explore: a timer moves virtual time, which any node may read', () => {
  // 2 sets a timer at start; 3 emits the time at which 1's message reaches it.
  const clockReader = (self: NodeId): Protocol<string, never, string> => ({
    start(ctx) {
      if (self === 1) ctx.send(3, 'hello')
      if (self === 2) ctx.setTimer('tick', 10)
    },
    onMessage(_from, _msg, ctx) {
      ctx.emit(`at ${ctx.now()}`)
    },
    onTimer(_key, ctx) {
      ctx.emit('tick')
    },
    snapshot: () => null,
  })
  const scenario: ExploreScenario = {
    setup: (net) => void net.launch([1, 2, 3], clockReader),
    invariant: () => undefined,
  }

  // Sleep sets once took a timer and a delivery at another node as independent with timers in
  // any order, and reached only one of these.
  it('orders a timer against a delivery at another node, even with timers in any order', () => {
    const { sleep, dpor, sleepEnds, dporEnds } = both(scenario, { timers: 'any-order' })
    expect(dpor.exhausted && sleep.exhausted).toBe(true)
    // 3 hears 1 before the timer (at 0) or after it (at 10): two terminal states.
    for (const ends of [sleepEnds, dporEnds]) {
      expect(ends.size).toBe(2)
      expect([...ends].filter((f) => f.includes('at 10')).length).toBe(1)
    }
    expect(explore(scenario, { timers: 'any-order' }).terminalStates).toBe(2)
  })
})
