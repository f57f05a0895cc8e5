import { describe, expect, it } from 'vitest'
import { changRoberts, pingPong } from '../../../../test-support/explore-protocols.js'
import {
  atOrBefore,
  type ExploreScenario,
  explore,
  explorePctRuns,
  replay,
  type WithClock,
  withVectorClocks,
} from '../../src/explore/index.js'
import type { NodeId } from '../../src/index.js'
import { causal, emitted, launch, mutex as mutexOf } from './support/scenarios.js'

const mutex = (tieBreak: boolean) => mutexOf(3, tieBreak)

// Links that reorder: on a FIFO ring every node has one ordered input, so all orderings are one.
const ring = (flag: boolean): ExploreScenario => ({
  fifo: false,
  setup: launch([1, 2, 3], changRoberts(3, flag)),
  invariant: ({ events }) => {
    for (const node of [1, 2, 3]) {
      const leaders = emitted(events, node).filter((e) => e.startsWith('leader'))
      if (leaders.length > 1) return `node ${node} was told of a leader ${leaders.length} times`
    }
    return undefined
  },
})

describe('explore: known-bad protocols are caught, and their counterexamples replay', () => {
  for (const [name, bad, good] of [
    ['Ricart-Agrawala without the pid tie-break', mutex(false), mutex(true)],
    ['Chang-Roberts without the participant flag', ring(false), ring(true)],
    ['causal broadcast that delivers on arrival', causal(true), causal(false)],
  ] as const) {
    it(name, () => {
      const result = explore(bad)
      expect(result.counterexample, name).toBeDefined()
      const { message, schedule, shrunk } = result.counterexample!
      expect(replay(bad, schedule).violation).toBe(message)
      const again = replay(bad, shrunk)
      expect(again.violation).toBeDefined()
      expect(shrunk.split(' ').length).toBeLessThanOrEqual(schedule.split(' ').length)
      // The replay writes a normal trace, for the playground and the visualizer.
      expect(again.net.traceDocument().events.length).toBeGreaterThan(0)
      // The correct protocol survives every ordering.
      const clean = explore(good)
      expect(clean.counterexample).toBeUndefined()
      expect(clean.exhausted).toBe(true)
      expect(clean.schedules).toBeGreaterThan(1)
    })
  }
})

describe('explore: the reduction', () => {
  // The sleep sets alone: the stateful search is compared with this one in stateful.test.ts.
  it('finds every terminal state the full exploration finds, with fewer schedules', () => {
    for (const scenario of [
      { setup: launch([1, 2, 3], pingPong(1)), invariant: () => undefined },
      { setup: launch([1, 2, 3], pingPong(2)), invariant: () => undefined },
      { ...causal(false) },
      { ...ring(true) },
    ] satisfies ExploreScenario[]) {
      const full = explore(scenario, { reduction: false, stateful: false })
      const reduced = explore(scenario, { stateful: false })
      expect(full.exhausted && reduced.exhausted).toBe(true)
      // Reduced schedules are a subset of the full ones, so equal counts mean equal sets.
      expect(reduced.terminalStates).toBe(full.terminalStates)
      expect(reduced.schedules).toBeLessThanOrEqual(full.schedules)
    }
    const full = explore(
      { setup: launch([1, 2, 3], pingPong(2)), invariant: () => undefined },
      { reduction: false, stateful: false },
    )
    const reduced = explore(
      { setup: launch([1, 2, 3], pingPong(2)), invariant: () => undefined },
      { stateful: false },
    )
    expect(reduced.schedules).toBeLessThan(full.schedules)
  })

  it('respects its bounds: depth cuts schedules, faults are injected only as allowed', () => {
    const scenario = { setup: launch([1, 2, 3], pingPong(2)), invariant: () => undefined }
    const cut = explore(scenario, { depth: 3 })
    expect(cut.cutByDepth).toBeGreaterThan(0)
    const capped = explore(scenario, { maxSchedules: 5, reduction: false })
    expect(capped.exhausted).toBe(false)
    expect(capped.schedules).toBe(5)
    // With one loss allowed, some schedule loses a message: a node ends with fewer receipts.
    const lossy = explore(scenario, { faults: { loss: 1 } })
    expect(lossy.terminalStates).toBeGreaterThan(explore(scenario).terminalStates)
  })
})

describe('explore: PCT for deeper spaces', () => {
  it('finds the tie-break bug within a few runs, and states its per-run guarantee', () => {
    const result = explorePctRuns(mutex(false), { runs: 50, d: 2, seed: 1 }, { depth: 40 })
    expect(result.counterexample).toBeDefined()
    expect(result.perRunBound).toBeCloseTo(1 / (3 * 40), 10)
    expect(replay(mutex(false), result.counterexample!.schedule).violation).toBeDefined()
  })
})

describe('explore: vector clocks for invariants, without a trace', () => {
  it('withVectorClocks stamps every emitted event; causality holds in every ordering', () => {
    let checked = 0
    const result = explore<WithClock<string>>({
      setup: (net) => void net.launch([1, 2, 3], withVectorClocks(pingPong(1))),
      invariant: ({ events }) => {
        const at = (node: NodeId, text: string) =>
          events
            .map((e) => ({ node: e.node, ...e.event }))
            .find((e) => e.node === node && e.event === text)
        // Node 1's receipt of 2's pong comes after 2's receipt of the ping it answers.
        const ping2 = at(2, 'ping1 from 1')
        const pong2 = at(1, 'pong1 from 2')
        if (ping2 && pong2) {
          checked++
          if (!atOrBefore(ping2.vc, pong2.vc)) return 'a pong is not after the ping it answers'
          if (atOrBefore(pong2.vc, ping2.vc)) return 'the ping is after its own pong'
        }
        return undefined
      },
    })
    expect(result.counterexample).toBeUndefined()
    expect(result.exhausted).toBe(true)
    expect(checked).toBeGreaterThan(0)
  })
})
