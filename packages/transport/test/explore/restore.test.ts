import { describe, expect, it } from 'vitest'
import { flood, pingPong, vectorBroadcast } from '../../../../test-support/explore-protocols.js'
import {
  bounce,
  ricartAgrawalaReleasing,
  tokenRing,
} from '../../../../test-support/liveness-protocols.js'
import {
  type ExploreOptions,
  type ExploreResult,
  type ExploreScenario,
  explore,
  withVectorClocks,
} from '../../src/explore/index.js'
import type { ProtocolFactory } from '../../src/index.js'
import { type AnyFactory, causal, ids, launch, mutex } from './support/scenarios.js'

/** The same scenario with `restore` taken off every protocol: the search must replay. */
function replaying(scenario: ExploreScenario): ExploreScenario {
  const strip =
    (factory: AnyFactory): AnyFactory =>
    (self) => {
      const { restore: _, ...rest } = factory(self)
      return rest
    }
  return {
    ...scenario,
    setup(net) {
      const launch = net.launch.bind(net)
      net.launch = ((members, factory, options) =>
        launch(members, strip(factory as AnyFactory) as never, options)) as typeof net.launch
      scenario.setup(net)
    },
  }
}

/** What the search found, not how: replays and steps differ, nothing else may. */
const verdict = (r: ExploreResult) => ({
  mode: r.mode,
  exhausted: r.exhausted,
  states: r.states,
  transitions: r.transitions,
  terminalStates: r.terminalStates,
  schedules: r.schedules,
  cutByDepth: r.cutByDepth,
  counterexample: r.counterexample,
  liveness: r.liveness,
})

const quiet = () => undefined
const requests = (k: number): ExploreScenario => ({
  setup(net) {
    net.launch(ids(3), vectorBroadcast())
    for (const id of ids(3)) for (let j = 1; j <= k; j++) net.request(id, { payload: `${id}.${j}` })
  },
  invariant: quiet,
})
const live = (factory: AnyFactory, goal: string): ExploreScenario => ({
  setup: launch(ids(3), factory),
  invariant: quiet,
  liveness: {
    name: goal,
    holds: ({ events }) => ids(3).every((n) => events.some((e) => e.node === n)),
  },
})
// biome-ignore lint/suspicious/noExplicitAny: a test protocol with requests
const bouncing: ProtocolFactory<any, any, string> = bounce(10)

/** 1 pings 2 twice, each time with a timer it cancels when the pong comes (or gives up). */
const patient: AnyFactory = (self) => ({
  start(ctx) {
    if (self !== 1) return
    for (const n of [1, 2]) {
      ctx.send(2, { n })
      ctx.setTimer(`give-up ${n}`, 50)
    }
  },
  onMessage(from, msg: { n: number }, ctx) {
    if (self === 2) ctx.send(from, msg)
    else {
      ctx.cancelTimer(`give-up ${msg.n}`)
      ctx.emit(`pong ${msg.n}`)
    }
  },
  onTimer(key, ctx) {
    ctx.emit(key)
  },
  snapshot: () => null,
  restore: () => undefined,
})

const cases: Array<[string, ExploreScenario, ExploreOptions?]> = [
  [
    'timers cancelled, a pause',
    { setup: launch(ids(2), patient), invariant: quiet },
    { faults: { pause: 1, loss: 1 }, pauseMs: 60, timers: 'any-order' },
  ],
  ['the mutex, 3 nodes', mutex(3, true)],
  ['the racy mutex: a counterexample', mutex(3, false)],
  ['the mutex, one crash', mutex(3, true), { faults: { crash: 1 } }],
  ['the mutex, one pause', mutex(2, true), { faults: { pause: 1 }, timers: 'any-order' }],
  [
    'ping-pong, one loss',
    { setup: launch(ids(3), pingPong(2)), invariant: quiet },
    { faults: { loss: 1 } },
  ],
  [
    'flood, a loss or a duplicate',
    { setup: launch(ids(3), flood(true)), invariant: quiet },
    { faults: { loss: 1, duplicate: 1, total: 1 } },
  ],
  [
    'ping-pong, a clock step',
    { setup: launch(ids(3), pingPong(1)), invariant: quiet },
    { faults: { clockStep: 1 }, timers: 'any-order' },
  ],
  ['causal broadcast on arrival: a counterexample', causal(true)],
  ['vector broadcast, requests, a forgetful history', { ...requests(1), history: () => null }],
  ['vector broadcast, reordering links', { ...requests(1), fifo: false }],
  [
    'a token ring that loses its token: a lasso',
    live(tokenRing(3, [2, 3]), 'entered'),
    { faults: { loss: 1 } },
  ],
  [
    'a token ring with a timer, to a time bound',
    live(tokenRing(3, [2, 3], 100), 'entered'),
    { faults: { loss: 1 }, until: 300 },
  ],
  [
    'a token ring with a timer, a pause that holds it back',
    live(tokenRing(3, [2, 3], 100), 'entered'),
    { faults: { pause: 1 }, pauseMs: 150, until: 300, timers: 'any-order' },
  ],
  ['Ricart-Agrawala that leaves, liveness', live(ricartAgrawalaReleasing(), 'entered')],
  ['bouncing with a timer, liveness', live(bouncing, 'served')],
  ['the mutex, a depth bound', mutex(3, true), { depth: 5 }],
  [
    'vector broadcast with vector clocks around it (the wrapper restores its clock)',
    {
      setup(net) {
        net.launch(ids(3), withVectorClocks(vectorBroadcast()))
        for (const id of ids(3)) net.request(id, { payload: `${id}` })
      },
      // Broken if a restored node's clock started over: its own count would go back.
      invariant: ({ events }) => {
        const last = new Map<unknown, number>()
        for (const { node, event } of events) {
          const own = (event as { vc: Record<string, number> }).vc[String(node)] ?? 0
          if (own <= (last.get(node) ?? 0)) return `node ${String(node)}'s clock went back`
          last.set(node, own)
        }
        return undefined
      },
    },
  ],
]

describe('explore, stateful: restoring saved states finds what replaying finds', () => {
  for (const [name, scenario, options] of cases) {
    it(name, () => {
      const restoring = explore(scenario, options)
      const replayed = explore(replaying(scenario), options)
      expect(restoring.mode).toBe('stateful')
      expect(replayed.restores).toBe(0)
      if (replayed.executions > 1) expect(restoring.restores).toBeGreaterThan(0)
      expect(verdict(restoring)).toEqual(verdict(replayed))
      // Restoring runs the scenario once; replaying, once per backtrack.
      expect(restoring.executions).toBe(1)
      expect(restoring.steps).toBe(restoring.transitions)
      expect(replayed.executions).toBe(restoring.restores! + 1)
    })
  }
})

describe('explore, stateful: a scenario keeps state beside the network (sideState)', () => {
  /**
   * The scenario collects each node's events itself (as a spec collects the faults that happened)
   * and judges that list: it must be the explorer's own events, on every path. Returning to a
   * saved state must cut it back, or one branch's events leak into the next.
   */
  const collecting = (keep: boolean): ExploreScenario => {
    const seen = new WeakMap<object, unknown[]>()
    return {
      setup(net) {
        const list: unknown[] = []
        seen.set(net, list)
        net.launch(ids(3), vectorBroadcast(), { onEmit: (_by, event) => list.push(event) })
        for (const id of ids(3)) net.request(id, { payload: id })
      },
      invariant({ net, events }) {
        const list = seen.get(net)!
        return list.length === events.length
          ? undefined
          : `the scenario's list has ${list.length} events, the path ${events.length}`
      },
      ...(keep && {
        sideState: {
          save: (net) => seen.get(net)!.length,
          restore(net, saved) {
            if (typeof saved !== 'number') throw new TypeError('expected a length')
            seen.get(net)!.length = saved
          },
        },
      }),
    }
  }

  it('without it, the list carries over from one branch to the next: the check fails', () => {
    const r = explore(collecting(false), { maxSchedules: 5_000 })
    expect(r.restores).toBeGreaterThan(0)
    expect(r.counterexample?.message).toMatch(/the scenario's list has/)
  })

  it('with it, restoring finds what replaying finds, and nothing is broken', () => {
    const restoring = explore(collecting(true), { maxSchedules: 5_000 })
    const replayed = explore(replaying(collecting(true)), { maxSchedules: 5_000 })
    expect(restoring.restores).toBeGreaterThan(0)
    expect(restoring.counterexample).toBeUndefined()
    expect(restoring.exhausted).toBe(true)
    expect(verdict(restoring)).toEqual(verdict(replayed))
  })
})
