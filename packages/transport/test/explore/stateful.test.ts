import { describe, expect, it } from 'vitest'
import {
  changRoberts,
  flood,
  pingPong,
  vectorBroadcast,
} from '../../../../test-support/explore-protocols.js'
import { type ExploreScenario, explore, replay } from '../../src/explore/index.js'
import { type AnyFactory, causal, emitted, ids, launch, mutex } from './support/scenarios.js'

const quiet = () => undefined

const once = (n: number, factory: AnyFactory, fifo = true): ExploreScenario => ({
  fifo,
  setup: launch(ids(n), factory),
  invariant: ({ events }) => {
    for (const node of ids(n)) {
      const got = emitted(events, node).filter((e) => e.startsWith('got') || e.startsWith('leader'))
      if (got.length > 1) return `node ${node} heard it ${got.length} times`
    }
    return undefined
  },
})

/** n nodes, k broadcasts each; each node delivers every sender's messages in their order. */
const broadcasts = (n: number, k: number, onArrival = false, fifo = true): ExploreScenario => ({
  fifo,
  setup(net) {
    net.launch(ids(n), vectorBroadcast(onArrival))
    for (const id of ids(n))
      for (let j = 1; j <= k; j++) net.request(id, { payload: `m${id}.${j}` })
  },
  invariant: ({ events }) => {
    for (const node of ids(n)) {
      const seen = emitted(events, node)
      for (const sender of ids(n))
        for (let j = 2; j <= k; j++) {
          const later = seen.indexOf(`deliver m${sender}.${j}`)
          if (later >= 0 && seen.indexOf(`deliver m${sender}.${j - 1}`) > later)
            return `node ${node} delivered m${sender}.${j} before m${sender}.${j - 1}`
        }
    }
    return undefined
  },
})

const configurations: Array<[string, ExploreScenario, Parameters<typeof explore>[1]?]> = [
  ['ping-pong, 3 nodes, 1 round', { setup: launch(ids(3), pingPong(1)), invariant: quiet }],
  ['ping-pong, 3 nodes, 2 rounds', { setup: launch(ids(3), pingPong(2)), invariant: quiet }],
  ['ping-pong, 4 nodes, 1 round', { setup: launch(ids(4), pingPong(1)), invariant: quiet }],
  [
    'ping-pong, 3 nodes, one loss',
    { setup: launch(ids(3), pingPong(1)), invariant: quiet },
    { faults: { loss: 1 } },
  ],
  ['racy mutex, 2 nodes', mutex(2, false)],
  ['racy mutex, 3 nodes', mutex(3, false)],
  ['mutex, 3 nodes', mutex(3, true)],
  ['mutex, 3 nodes, one crash', mutex(3, true), { faults: { crash: 1 } }],
  ['mutex, 2 nodes, one pause', mutex(2, true), { faults: { pause: 1 } }],
  ['racy mutex, 2 nodes, one duplicate', mutex(2, false), { faults: { duplicate: 1 } }],
  [
    'flood, 3 nodes, a loss or a duplicate',
    once(3, flood(true)),
    { faults: { loss: 1, duplicate: 1, total: 1 } },
  ],
  [
    'ping-pong, clock step, timers in any order',
    { setup: launch(ids(3), pingPong(1)), invariant: quiet },
    { faults: { clockStep: 1 }, timers: 'any-order' },
  ],
  ['flood, 3 nodes', once(3, flood(true))],
  ['flood, 4 nodes', once(4, flood(true))],
  ['flood without dedupe, 3 nodes', once(3, flood(false)), { depth: 20 }],
  ['ring, 3 nodes, reordering links', once(3, changRoberts(3, true), false)],
  ['ring without the flag', once(3, changRoberts(3, false), false)],
  ['causal broadcast a -> b', causal(false)],
  ['causal broadcast on arrival', causal(true)],
  ['vector broadcast, 3 nodes, 1 each', broadcasts(3, 1)],
  ['vector broadcast, 2 nodes, 2 each, reordering', broadcasts(2, 2, false, false)],
  ['vector broadcast on arrival, reordering', broadcasts(2, 2, true, false)],
]

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
