/**
 * The explorer's speed: schedules per second exhausting a 3-node ping-pong (two rounds) and a
 * 3-node Ricart-Agrawala (every node asks once), with and without the sleep-set reduction (the
 * reduction factor: how many fewer schedules for the same terminal states); and the time to
 * exhaust the 3-node causal broadcast of @sd/clocks with one broadcast per member (two each is out
 * of reach: see the README). Medians of SD_EXPLORE_RUNS (default 3) runs.
 */
import { causalBroadcast } from '@sd/clocks'
import type { NodeId, SimNetwork } from '@sd/transport'
import { type ExploreScenario, explore } from '@sd/transport/explore'
import { pingPong, ricartAgrawala } from '../../test-support/explore-protocols.js'
import { median } from './lib/measure.js'
import type { BenchResult } from './lib/result.js'

const RUNS = Number(process.env.SD_EXPLORE_RUNS ?? 3)
const IDS: NodeId[] = [1, 2, 3]
const log = (line: string) => console.error(`  explore: ${line}`)
const quiet: ExploreScenario['invariant'] = () => undefined

function timed(scenario: ExploreScenario, reduction: boolean) {
  const runs = Array.from({ length: RUNS }, () => {
    const started = performance.now()
    const result = explore(scenario, { reduction, maxSchedules: 1_000_000 })
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
    { maxSchedules: 50_000 },
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
  return results
}
