/**
 * The stateful explorer on the packages' own protocols (every one has `snapshot()` and
 * `restore()`, so it branches from saved states instead of replaying), beside the stateless
 * sleep-set search of the same scenario in the same run: the 3-node causal broadcast of
 * @sd/clocks with two broadcasts each (what stateless search could not exhaust), and the mutexes
 * of @sd/mutex (Ricart-Agrawala at n = 3 and 4, Lamport's at n = 4) with every node asking once
 * and releasing 1 ms after it enters. Stateful: states, transitions, states per second,
 * exhausted or not, time, restores and replays. Stateless: schedules per second; it is bounded
 * (20,000 schedules), so its figure is how far it got in that many. The reduction factor is the
 * baseline's steps over the stateful states (a lower bound when the baseline was not exhausted).
 * The stateful search stops at 5,000,000 states (SD_EXPLORE_MAX_STATES for a quicker look): a space
 * that large is reported as not exhausted. Run with room for the visited set (about 60 bytes a
 * state): NODE_OPTIONS=--max-old-space-size=8000.
 */
import { causalBroadcast } from '@sd/clocks'
import { lamportMutex, type MutexRequest, ricartAgrawala } from '@sd/mutex'
import type { NodeId, ProtocolFactory, SimNetwork } from '@sd/transport'
import { type ExploreResult, type ExploreScenario, explore } from '@sd/transport/explore'
import type { BenchResult } from './lib/result.js'

const log = (line: string) => console.error(`  explore: ${line}`)
const ids = (n: number): NodeId[] => Array.from({ length: n }, (_, i) => i + 1)
/** The stateful search stops here; a space this large is reported as not exhausted. */
const MAX_STATES = Number(process.env.SD_EXPLORE_MAX_STATES ?? 5_000_000)
/** The stateless baseline's bound, in schedules: how far it gets is its figure. */
const BASELINE_SCHEDULES = 20_000

type Explored = { result: ExploreResult; ms: number }

function run(scenario: ExploreScenario, stateful: boolean, maxSchedules: number): Explored {
  const started = performance.now()
  const result = explore(scenario, {
    stateful,
    maxStates: MAX_STATES,
    maxSchedules,
    timers: 'any-order',
  })
  return { result, ms: performance.now() - started }
}

/** Each member broadcasts `k` messages at 0 ms; the invariant reads nothing, so no history is kept. */
function causal(k: number): ExploreScenario {
  return {
    setup(net) {
      net.launch(ids(3), () => causalBroadcast<string>())
      for (const id of ids(3))
        for (let j = 1; j <= k; j++)
          net.request(id, { type: 'broadcast', payload: `m${String(id)}.${j}` })
    },
    invariant: () => undefined,
    history: () => null,
  }
}

/** `n` nodes each ask once at 0 ms and release 1 ms after entering. */
function mutex<Msg, Ev extends { type: string }>(
  n: number,
  factory: ProtocolFactory<Msg, MutexRequest, Ev>,
): ExploreScenario {
  return {
    setup(net: SimNetwork) {
      net.launch(ids(n), factory, {
        onEmit: (node, event, t) => {
          if (event.type === 'acquired') net.request<MutexRequest>(node, { type: 'release' }, t + 1)
        },
      })
      for (const id of ids(n)) net.request<MutexRequest>(id, { type: 'acquire' })
    },
    invariant: () => undefined,
    history: () => null,
  }
}

function measure(name: string, params: Record<string, unknown>, scenario: ExploreScenario) {
  const stateful = run(scenario, true, Number.MAX_SAFE_INTEGER)
  const s = stateful.result
  if (s.mode !== 'stateful') throw new Error(`${name}: the stateful search did not run`)
  const budget = BASELINE_SCHEDULES
  const stateless = run(scenario, false, budget)
  const b = stateless.result
  const statesPerS = (s.states / stateful.ms) * 1000
  const schedulesPerS = (b.schedules / stateless.ms) * 1000
  // Steps the stateless search took (complete schedules) over the states the stateful one
  // expanded: a lower bound when the baseline stopped at its bound.
  const reduction = b.steps / s.states
  log(
    `${name}: stateful ${s.states} states, ${s.transitions} transitions, ${s.restores ?? 0} restores, ${s.executions} executions in ${stateful.ms.toFixed(0)} ms (${statesPerS.toFixed(0)} states/s), exhausted: ${s.exhausted}; stateless ${b.schedules} schedules, ${b.steps} steps in ${stateless.ms.toFixed(0)} ms (${schedulesPerS.toFixed(0)} schedules/s), exhausted: ${b.exhausted}; stateless steps / stateful states ${reduction.toFixed(1)}${b.exhausted ? '' : ' (at least)'}`,
  )
  return {
    name: `explore.${name}.stateful`,
    unit: 'states/s',
    value: Math.round(statesPerS),
    params: { ...params, reduction: true, timers: 'any-order', history: null, runs: 1 },
    extra: {
      exhausted: s.exhausted,
      states: s.states,
      transitions: s.transitions,
      restores: s.restores ?? 0,
      executions: s.executions,
      steps: s.steps,
      ms: Math.round(stateful.ms),
      maxStates: MAX_STATES,
      stateless: {
        exhausted: b.exhausted,
        schedules: b.schedules,
        schedulesPerS: Math.round(schedulesPerS),
        steps: b.steps,
        ms: Math.round(stateless.ms),
        maxSchedules: budget,
      },
      reduction: {
        factor: Math.round(reduction * 10) / 10,
        of: 'stateless steps / stateful states',
        lowerBound: !b.exhausted,
      },
    },
  } satisfies BenchResult
}

export default async function explorePackagesBench(): Promise<BenchResult[]> {
  return [
    measure('clocks-causal-2each', { nodes: 3, messagesEach: 2 }, causal(2)),
    measure('mutex-ricart-agrawala-3', { nodes: 3 }, mutex(3, ricartAgrawala())),
    measure('mutex-ricart-agrawala-4', { nodes: 4 }, mutex(4, ricartAgrawala())),
    measure('mutex-lamport-4', { nodes: 4 }, mutex(4, lamportMutex())),
  ]
}
