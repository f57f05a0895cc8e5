/**
 * The ample-set reduction (`reduction: 'ample'`) against sleep sets alone, both stateful, on the
 * @sd/mutex scenarios of `explore-packages.bench.ts` (every node asks once at 0 ms and releases
 * 1 ms after entering; the invariant reads nothing, declared as `reads: {}`; timers in any order):
 * states, transitions, CPU time, and how many states the ample sets expanded with fewer choices.
 * Both protocols send to every peer (requests to all, replies to each requester), and each
 * node's `acquired` plans its release: the `communication` declared is everyone to everyone,
 * every node timed (the most that is true), which the search checks on every step. The factor is states with sleep sets
 * over states with ample sets. Each search stops at SD_EXPLORE_MAX_STATES (default 2,000,000):
 * at n = 4 the figures are for that prefix of the search. Run with room for the visited set:
 * NODE_OPTIONS=--max-old-space-size=8000.
 */
import { lamportMutex, type MutexRequest, ricartAgrawala } from '@sd/mutex'
import type { ProtocolFactory } from '@sd/transport'
import { type ExploreResult, type ExploreScenario, explore } from '@sd/transport/explore'
import { ids, mutexScenario } from './lib/explore-mutex.js'
import type { BenchResult } from './lib/result.js'

const log = (line: string) => console.error(`  explore-ample: ${line}`)
const MAX_STATES = Number(process.env.SD_EXPLORE_MAX_STATES ?? 2_000_000)

/** The benches' mutex scenario, declaring that it reads nothing and that everyone talks to everyone. */
function mutex<Msg, Ev extends { type: string }>(
  n: number,
  factory: ProtocolFactory<Msg, MutexRequest, Ev>,
): ExploreScenario {
  return {
    ...mutexScenario(n, factory),
    reads: {},
    communication: { sendsTo: () => ids(n), timed: ids(n) },
  }
}

/** One search; CPU time, as the machine is shared. */
function run(scenario: ExploreScenario, reduction: 'sleep' | 'ample') {
  const started = process.cpuUsage()
  const result = explore(scenario, { maxStates: MAX_STATES, timers: 'any-order', reduction })
  const used = process.cpuUsage(started)
  return { result, cpuMs: (used.user + used.system) / 1000 }
}

const figures = (r: ExploreResult, cpuMs: number) => ({
  exhausted: r.exhausted,
  states: r.states,
  transitions: r.transitions,
  steps: r.steps,
  cpuMs: Math.round(cpuMs),
})

function measure(name: string, n: number, scenario: ExploreScenario): BenchResult {
  const sleep = run(scenario, 'sleep')
  const ample = run(scenario, 'ample')
  if (ample.result.reduction !== 'ample') throw new Error(`${name}: the ample sets did not run`)
  const info = ample.result.ample!
  const factor = sleep.result.states / ample.result.states
  log(
    `${name}: sleep sets ${sleep.result.states} states (exhausted: ${sleep.result.exhausted}, ${sleep.cpuMs.toFixed(0)} ms CPU); ample sets ${ample.result.states} states (exhausted: ${ample.result.exhausted}, ${ample.cpuMs.toFixed(0)} ms CPU), ${info.reduced} states reduced, ${info.refused} refused; factor ${factor.toFixed(2)}`,
  )
  return {
    name: `explore.${name}.ample`,
    unit: 'x fewer states',
    value: Math.round(factor * 100) / 100,
    params: { nodes: n, timers: 'any-order', history: null, reads: 'nothing', runs: 1 },
    extra: {
      maxStates: MAX_STATES,
      sleep: figures(sleep.result, sleep.cpuMs),
      ample: { ...figures(ample.result, ample.cpuMs), ...info },
    },
  }
}

export default async function exploreAmpleBench(): Promise<BenchResult[]> {
  return [
    measure('mutex-ricart-agrawala-3', 3, mutex(3, ricartAgrawala())),
    measure('mutex-ricart-agrawala-4', 4, mutex(4, ricartAgrawala())),
    measure('mutex-lamport-4', 4, mutex(4, lamportMutex())),
  ]
}
