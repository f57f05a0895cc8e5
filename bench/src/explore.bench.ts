/**
 * The explorer's speed: schedules per second exhausting a 3-node ping-pong (two rounds) and a
 * 3-node Ricart-Agrawala (every node asks once), with and without the sleep-set reduction (the
 * reduction factor: how many fewer schedules for the same terminal states); the time to exhaust
 * the 3-node causal broadcast of @sd/clocks with one broadcast per member, and how far 50,000
 * schedules get with two each. All of that stateless; beside it, in the same run, the stateful
 * search on the test protocols (which have `snapshot()`): states, states per second, and how many
 * fewer executions and steps than the stateless one, up to the test protocols' vector causal
 * broadcast with two messages each. Medians of SD_EXPLORE_RUNS (default 3) runs.
 */
import { causalBroadcast } from '@sd/clocks'
import type { NodeId, SimNetwork } from '@sd/transport'
import { type ExploreScenario, explore } from '@sd/transport/explore'
import {
  flood,
  pingPong,
  ricartAgrawala,
  vectorBroadcast,
} from '../../test-support/explore-protocols.js'
import { median } from './lib/measure.js'
import type { BenchResult } from './lib/result.js'

const RUNS = Number(process.env.SD_EXPLORE_RUNS ?? 3)
const IDS: NodeId[] = [1, 2, 3]
const log = (line: string) => console.error(`  explore: ${line}`)
const quiet: ExploreScenario['invariant'] = () => undefined

function timed(scenario: ExploreScenario, reduction: boolean, stateful = false) {
  const runs = Array.from({ length: RUNS }, () => {
    const started = performance.now()
    const result = explore(scenario, { reduction, stateful, maxSchedules: 1_000_000 })
    return { ms: performance.now() - started, result }
  })
  const ms = median(runs.map((r) => r.ms))
  const { result } = runs[0]!
  if (!result.exhausted) throw new Error('the space was not exhausted: raise maxSchedules')
  return { ms, result, perSecond: (result.schedules / ms) * 1000 }
}

function pair(name: string, scenario: ExploreScenario): BenchResult[] {
  const full = timed(scenario, false)
  const reduced = timed(scenario, true)
  if (full.result.terminalStates !== reduced.result.terminalStates)
    throw new Error(`${name}: the reduction lost terminal states`)
  log(
    `${name}: ${full.result.schedules} schedules in ${full.ms.toFixed(0)} ms without the reduction, ${reduced.result.schedules} in ${reduced.ms.toFixed(0)} ms with it; ${reduced.result.terminalStates} terminal states both ways`,
  )
  const extra = (r: typeof full) => ({
    schedules: r.result.schedules,
    steps: r.result.steps,
    terminalStates: r.result.terminalStates,
    exhaustMs: Math.round(r.ms),
  })
  return [
    {
      name: `explore.${name}.schedules-per-s`,
      unit: 'schedules/s',
      value: Math.round(full.perSecond),
      params: { nodes: 3, reduction: false, runs: RUNS },
      extra: extra(full),
    },
    {
      name: `explore.${name}.reduction`,
      unit: 'x fewer schedules',
      value: Number((full.result.schedules / reduced.result.schedules).toFixed(1)),
      params: { nodes: 3, runs: RUNS },
      extra: {
        withoutReduction: extra(full),
        withReduction: extra(reduced),
        timeRatio: Number((full.ms / reduced.ms).toFixed(1)),
        reducedSchedulesPerS: Math.round(reduced.perSecond),
      },
    },
  ]
}

export default async function exploreBench(): Promise<BenchResult[]> {
  const launch = (factory: Parameters<SimNetwork['launch']>[1]) => (net: SimNetwork) => {
    net.launch(IDS, factory)
  }
  const results = [
    ...pair('pingpong', { setup: launch(pingPong(2)), invariant: quiet }),
    ...pair('ricart-agrawala', { setup: launch(ricartAgrawala(true)), invariant: quiet }),
  ]
  const causal = timed(
    {
      setup(net) {
        net.launch(IDS, () => causalBroadcast<string>())
        for (const id of IDS) net.request(id, { type: 'broadcast', payload: `m${String(id)}` })
      },
      invariant: quiet,
    },
    true,
  )
  log(
    `causal broadcast, 3 nodes, 1 message each: exhausted in ${causal.ms.toFixed(0)} ms (${causal.result.schedules} schedules)`,
  )
  results.push({
    name: 'explore.causal-broadcast.exhaust',
    unit: 'ms',
    value: Math.round(causal.ms),
    lowerIsBetter: true,
    params: { nodes: 3, messagesEach: 1, reduction: true, runs: RUNS },
    extra: {
      schedules: causal.result.schedules,
      steps: causal.result.steps,
      terminalStates: causal.result.terminalStates,
    },
  })
  // Two broadcasts each: far more orderings. Bounded, to report how far 50,000 schedules get.
  const started = performance.now()
  const deeper = explore(
    {
      setup(net) {
        net.launch(IDS, () => causalBroadcast<string>())
        for (const id of IDS)
          for (const k of [1, 2])
            net.request(id, { type: 'broadcast', payload: `m${String(id)}.${k}` })
      },
      invariant: quiet,
    },
    { maxSchedules: 50_000, stateful: false },
  )
  const deeperMs = performance.now() - started
  log(
    `causal broadcast, 2 messages each: ${deeper.schedules} schedules in ${deeperMs.toFixed(0)} ms, exhausted: ${deeper.exhausted}`,
  )
  results.push({
    name: 'explore.causal-broadcast-2each.bounded',
    unit: 'schedules/s',
    value: Math.round((deeper.schedules / deeperMs) * 1000),
    params: { nodes: 3, messagesEach: 2, reduction: true, maxSchedules: 50_000 },
    extra: {
      exhausted: deeper.exhausted,
      schedules: deeper.schedules,
      ms: Math.round(deeperMs),
      terminalStates: deeper.terminalStates,
    },
  })
  results.push(
    stateful('pingpong', { setup: launch(pingPong(2)), invariant: quiet }),
    stateful('ricart-agrawala', { setup: launch(ricartAgrawala(true)), invariant: quiet }),
    stateful('flood-4', {
      setup: (net) => void net.launch([1, 2, 3, 4], flood(true)),
      invariant: quiet,
    }),
    stateful('vector-broadcast', broadcasts(1)),
  )
  results.push(twoEach())
  return results
}

/** The test protocols' vector causal broadcast: `k` broadcasts per member. */
function broadcasts(k: number, history?: ExploreScenario['history']): ExploreScenario {
  return {
    setup(net) {
      net.launch(IDS, vectorBroadcast())
      for (const id of IDS)
        for (let j = 1; j <= k; j++) net.request(id, { payload: `m${String(id)}.${j}` })
    },
    invariant: quiet,
    ...(history ? { history } : {}),
  }
}

/** The stateful search beside the stateless one (both with the reduction), in this run. */
function stateful(name: string, scenario: ExploreScenario): BenchResult {
  const before = timed(scenario, true, false)
  const after = timed(scenario, true, true)
  const a = after.result
  const b = before.result
  if (a.mode !== 'stateful') throw new Error(`${name}: the stateful search did not run`)
  if (a.terminalStates !== b.terminalStates)
    throw new Error(`${name}: the stateful search lost terminal states`)
  const statesPerS = (a.states / after.ms) * 1000
  log(
    `${name}, stateful: ${a.states} states, ${a.executions} executions, ${a.steps} steps in ${after.ms.toFixed(0)} ms (${statesPerS.toFixed(0)} states/s); stateless: ${b.executions} executions, ${b.steps} steps in ${before.ms.toFixed(0)} ms; ${a.terminalStates} terminal states both ways`,
  )
  return {
    name: `explore.${name}.stateful`,
    unit: 'states/s',
    value: Math.round(statesPerS),
    params: { reduction: true, runs: RUNS },
    extra: {
      states: a.states,
      transitions: a.transitions,
      executions: a.executions,
      schedules: a.schedules,
      steps: a.steps,
      terminalStates: a.terminalStates,
      exhaustMs: Math.round(after.ms),
      stateless: { executions: b.executions, steps: b.steps, exhaustMs: Math.round(before.ms) },
      fewerExecutions: Number((b.executions / a.executions).toFixed(1)),
      fewerSteps: Number((b.steps / a.steps).toFixed(1)),
      timeRatio: Number((before.ms / after.ms).toFixed(1)),
    },
  }
}

/**
 * Three members, two broadcasts each: the space stateless search cannot exhaust. The invariant
 * reads nothing, so no history is kept: states merge whatever order their events came in. Every
 * request is due at 0 ms, so `timers: 'any-order'` offers the same choices as in order, and lets
 * the sleep sets treat requests at different members as independent (half the executions).
 */
function twoEach(): BenchResult {
  const started = performance.now()
  const result = explore(
    broadcasts(2, () => null),
    {
      maxSchedules: 1_000_000,
      timers: 'any-order',
    },
  )
  const ms = performance.now() - started
  log(
    `vector causal broadcast, 2 messages each, stateful: ${result.states} states, ${result.executions} executions in ${ms.toFixed(0)} ms, exhausted: ${result.exhausted}`,
  )
  return {
    name: 'explore.vector-broadcast-2each.stateful',
    unit: 'states/s',
    value: Math.round((result.states / ms) * 1000),
    params: {
      nodes: 3,
      messagesEach: 2,
      reduction: true,
      history: null,
      timers: 'any-order',
      runs: 1,
    },
    extra: {
      exhausted: result.exhausted,
      mode: result.mode,
      states: result.states,
      transitions: result.transitions,
      executions: result.executions,
      schedules: result.schedules,
      steps: result.steps,
      terminalStates: result.terminalStates,
      ms: Math.round(ms),
    },
  }
}
