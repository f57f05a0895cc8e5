/**
 * Symmetry reduction on the 3-node causal broadcast of @sd/clocks with two broadcasts each (the
 * members are interchangeable: see apps/playground/src/check/clocks.ts, `causalSymmetry`): the
 * stateful search with symmetry, the stateful search without it, and the stateless search with
 * sleep sets alone (no DPOR, no state caching) as the bounded baseline, in the same run. States,
 * time, exhausted or not, for each; `ratio` is the baseline's steps executed over the states the
 * stateful search with symmetry expanded (how much work caching + symmetry saves over sleep sets
 * alone, at least that much when the baseline stopped at its bound). The bound lets both stateful
 * searches exhaust (779,433 states without symmetry); a space larger than MAX_STATES is reported
 * as not exhausted (SD_EXPLORE_MAX_STATES lowers it for a quicker look).
 */
import { causalBroadcast, causalRelabel } from '@sd/clocks'
import type { NodeId } from '@sd/transport'
import {
  type ExploreOptions,
  type ExploreResult,
  type ExploreScenario,
  explore,
} from '@sd/transport/explore'
import type { BenchResult } from './lib/result.js'

const log = (line: string) => console.error(`  explore-symmetry: ${line}`)
const MEMBERS: NodeId[] = [1, 2, 3]
/** Each stateful search stops here. */
const MAX_STATES = Number(process.env.SD_EXPLORE_MAX_STATES ?? 1_000_000)
/** The stateless baseline's bound, in schedules. */
const BASELINE_SCHEDULES = 5_000

/** Each member broadcasts `m<id>.1` .. `m<id>.<each>` at 0 ms; no history (the invariant reads none). */
function causal(each: number): ExploreScenario {
  return {
    setup(net) {
      net.launch(MEMBERS, () => causalBroadcast<string>())
      for (const id of MEMBERS)
        for (let j = 1; j <= each; j++)
          net.request(id, { type: 'broadcast', payload: `m${String(id)}.${j}` })
    },
    invariant: () => undefined,
    history: () => null,
  }
}

type Explored = { result: ExploreResult; ms: number }

function run(scenario: ExploreScenario, options: ExploreOptions): Explored {
  const started = performance.now()
  const result = explore(scenario, { maxStates: MAX_STATES, ...options })
  return { result, ms: Math.round(performance.now() - started) }
}

const figures = ({ result: r, ms }: Explored) => ({
  exhausted: r.exhausted,
  states: r.states,
  transitions: r.transitions,
  executions: r.executions,
  schedules: r.schedules,
  steps: r.steps,
  ms,
})

function measure(each: number): BenchResult {
  const scenario = causal(each)
  const symmetric = run(
    { ...scenario, symmetric: true, relabel: causalRelabel(MEMBERS, renameSender) },
    { stateful: true, maxSchedules: Number.MAX_SAFE_INTEGER },
  )
  const plain = run(scenario, { stateful: true, maxSchedules: Number.MAX_SAFE_INTEGER })
  const sleep = run(scenario, {
    stateful: false,
    reduction: 'sleep',
    maxSchedules: BASELINE_SCHEDULES,
  })
  const s = symmetric.result
  if (s.mode !== 'stateful' || s.symmetry === undefined)
    throw new Error('explore-symmetry: the stateful search with symmetry did not run')
  for (const [name, x] of [
    ['stateful + symmetry', symmetric],
    ['stateful', plain],
    ['stateless sleep sets', sleep],
  ] as const)
    log(
      `${each} each: ${name}: ${x.result.states} states, ${x.result.schedules} schedules, ${x.result.steps} steps in ${x.ms} ms, exhausted: ${x.result.exhausted}`,
    )
  const reduction = Math.round((sleep.result.steps / s.states) * 10) / 10
  return {
    name: `explore.clocks-causal-${each}each.symmetry`,
    unit: 'states',
    value: s.states,
    lowerIsBetter: true,
    baseline: { name: 'stateful search without symmetry (states)', value: plain.result.states },
    params: {
      nodes: MEMBERS.length,
      messagesEach: each,
      history: null,
      maxStates: MAX_STATES,
      baselineMaxSchedules: BASELINE_SCHEDULES,
      runs: 1,
    },
    extra: {
      symmetry: { ...figures(symmetric), ...s.symmetry },
      stateful: figures(plain),
      statelessSleepSets: figures(sleep),
      // Sleep sets alone do this many steps per state the stateful search with symmetry expands.
      reductionOverSleepSets: {
        measure: 'baseline steps executed / stateful+symmetry states',
        value: reduction,
        atLeast: !sleep.result.exhausted,
      },
    },
  }
}

export default async function exploreSymmetryBench(): Promise<BenchResult[]> {
  // One broadcast each: small enough that every search exhausts, so the factors are exact.
  return [measure(1), measure(2)]
}

/** Payloads name their sender (`m<id>.<j>`): renamed with it. */
function renameSender(payload: unknown, rename: (id: NodeId) => NodeId): unknown {
  const match = typeof payload === 'string' ? /^m(\d+)(\..*)$/.exec(payload) : null
  return match === null ? payload : `m${String(rename(Number(match[1])))}${match[2]}`
}
