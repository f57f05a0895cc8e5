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
 *
 * Rates: the first search of each kind is the cold figure (`extra.cold`: the protocol's code not
 * compiled yet, what a one-off small search sees). A scenario whose cold stateful search took less
 * than SD_EXPLORE_REPEAT_MS (default 20,000 ms of wall time) is then searched again: the stateful
 * search SD_EXPLORE_WARMUP times left out (default 4) and SD_EXPLORE_ROUNDS times measured (default
 * 9), then the stateless one (its cold run, its warm-up, its rounds). The value is the median of
 * the measured rounds by CPU time (process.cpuUsage: what the search itself cost, whatever else
 * the machine runs), beside it the median by wall time (`extra.warm`), both with their per-round
 * figures; `rounds` pairs the stateful states/s with the stateless schedules/s of the same round
 * number, by CPU time. A longer search is not repeated (it is warm after its first seconds): its
 * value is its own CPU-time rate.
 * SD_EXPLORE_ONLY=<name>[,<name>] runs only those scenarios (e.g. mutex-ricart-agrawala-3).
 * SD_EXPLORE_PROGRESS=<states> logs a stateful search's counts every that many states.
 * The `-dead-clocks` and `-capped-times` mutex scenarios are the n = 4 ones with a key abstraction
 * (`ExploreScenario.abstraction`, lib/explore-mutex-abstraction.ts): the same runs, states that
 * differ only in dead Lamport times expanded once; they exhaust with SD_EXPLORE_MAX_STATES above
 * their size (see the README).
 */
import { causalBroadcast } from '@sd/clocks'
import { lamportMutex, ricartAgrawala } from '@sd/mutex'
import { type ExploreResult, type ExploreScenario, explore } from '@sd/transport/explore'
import { ids, mutexScenario } from './lib/explore-mutex.js'
import { lamportCappedTimes, ricartAgrawalaDeadClocks } from './lib/explore-mutex-abstraction.js'
import { type Rates, ratesOf, type Timed, timed, warmRates } from './lib/explore-rounds.js'
import type { BenchResult } from './lib/result.js'

const log = (line: string) => console.error(`  explore: ${line}`)
/** The stateful search stops here; a space this large is reported as not exhausted. */
const MAX_STATES = Number(process.env.SD_EXPLORE_MAX_STATES ?? 5_000_000)
/** The stateless baseline's bound, in schedules: how far it gets is its figure. */
const BASELINE_SCHEDULES = 20_000
/** Searches whose cold run took less wall time than this are repeated for a warm median. */
const REPEAT_MS = Number(process.env.SD_EXPLORE_REPEAT_MS ?? 20_000)
// A 14,011-state search reached its speed at the fourth or fifth run (the compiler's tiers).
const WARMUP = Number(process.env.SD_EXPLORE_WARMUP ?? 4)
const ROUNDS = Number(process.env.SD_EXPLORE_ROUNDS ?? 9)
const ONLY = process.env.SD_EXPLORE_ONLY?.split(',').filter((name) => name !== '')

/** SD_EXPLORE_PROGRESS=<states>: a long search logs its counts and CPU time that often. */
const PROGRESS = Number(process.env.SD_EXPLORE_PROGRESS ?? 0)

function run(scenario: ExploreScenario, stateful: boolean, maxSchedules: number) {
  const cpu0 = process.cpuUsage()
  const progress = (r: Readonly<ExploreResult>) => {
    const { user, system } = process.cpuUsage(cpu0)
    const cpuS = (user + system) / 1e6
    log(
      `${r.states.toLocaleString('en')} states, ${r.transitions.toLocaleString('en')} transitions, ${cpuS.toFixed(0)} s CPU (${Math.round(r.states / cpuS).toLocaleString('en')} states/s), ${Math.round(process.memoryUsage().rss / 2 ** 20)} MiB resident`,
    )
  }
  return timed(() =>
    explore(scenario, {
      stateful,
      maxStates: MAX_STATES,
      maxSchedules,
      timers: 'any-order',
      ...(stateful && PROGRESS > 0 ? { onProgress: progress, progressEvery: PROGRESS } : {}),
    }),
  )
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

const mutex = mutexScenario

/** What a repeat must find again: the search is deterministic. */
const countsOf = (r: ExploreResult) =>
  JSON.stringify([r.states, r.transitions, r.restores, r.schedules, r.steps, r.exhausted])

/** The warm rounds of one kind of search, after its warm-up: the same counts every time. */
function repeated(name: string, search: () => Timed<ExploreResult>, first: ExploreResult): Rates[] {
  const rounds: Rates[] = []
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    const again = search()
    if (countsOf(again.result) !== countsOf(first))
      throw new Error(`${name}: round ${round} explored differently from the first search`)
    const work = first.mode === 'stateful' ? first.states : first.schedules
    if (round >= WARMUP) rounds.push(ratesOf(work, again))
  }
  return rounds
}

function measure(name: string, params: Record<string, unknown>, scenario: ExploreScenario) {
  // Each kind's rounds in a block of their own: a stateless search run between two stateful ones
  // slowed the stateful one by 40% (its code then serves both kinds), which no long search sees.
  const statefulSearch = () => run(scenario, true, Number.MAX_SAFE_INTEGER)
  const stateful = statefulSearch()
  const s = stateful.result
  if (s.mode !== 'stateful') throw new Error(`${name}: the stateful search did not run`)
  const repeat = stateful.ms < REPEAT_MS
  const statefulRounds = repeat ? repeated(name, statefulSearch, s) : []
  const budget = BASELINE_SCHEDULES
  const statelessSearch = () => run(scenario, false, budget)
  const stateless = statelessSearch()
  const b = stateless.result
  const statelessRounds = repeat ? repeated(name, statelessSearch, b) : []
  const cold = { stateful: ratesOf(s.states, stateful), stateless: ratesOf(b.schedules, stateless) }
  const warm = repeat ? warmRates(statefulRounds, WARMUP) : undefined
  const warmBaseline = repeat ? warmRates(statelessRounds, WARMUP) : undefined
  const value = warm?.cpu.median ?? cold.stateful.cpu
  const baseline = warmBaseline?.cpu.median ?? cold.stateless.cpu
  // Steps the stateless search took (complete schedules) over the states the stateful one
  // expanded: a lower bound when the baseline stopped at its bound.
  const reduction = b.steps / s.states
  log(
    `${name}: stateful ${s.states} states, ${s.transitions} transitions, ${s.restores ?? 0} restores, ${s.executions} executions, exhausted: ${s.exhausted}; cold ${stateful.ms.toFixed(0)} ms (${cold.stateful.wall} states/s wall, ${cold.stateful.cpu} CPU)${warm ? `; warm median of ${warm.rounds}: ${warm.cpu.median} states/s CPU, ${warm.wall.median} wall` : ''}; stateless ${b.schedules} schedules, ${b.steps} steps, exhausted: ${b.exhausted}; cold ${stateless.ms.toFixed(0)} ms (${cold.stateless.wall} schedules/s wall, ${cold.stateless.cpu} CPU)${warmBaseline ? `; warm ${warmBaseline.cpu.median} schedules/s CPU, ${warmBaseline.wall.median} wall` : ''}; stateless steps / stateful states ${reduction.toFixed(1)}${b.exhausted ? '' : ' (at least)'}`,
  )
  return {
    name: `explore.${name}.stateful`,
    unit: 'states/s',
    value,
    baseline: { name: 'stateless search, schedules/s', value: baseline },
    ...(repeat
      ? {
          rounds: {
            value: statefulRounds.map((r) => r.cpu),
            baseline: statelessRounds.map((r) => r.cpu),
          },
        }
      : {}),
    params: {
      ...params,
      reduction: true,
      timers: 'any-order',
      history: null,
      timing: repeat ? 'cpu, median of warm rounds' : 'cpu, one search',
    },
    extra: {
      exhausted: s.exhausted,
      states: s.states,
      transitions: s.transitions,
      restores: s.restores ?? 0,
      executions: s.executions,
      steps: s.steps,
      maxStates: MAX_STATES,
      warm: warm ?? null,
      cold: { ms: Math.round(stateful.ms), cpuMs: Math.round(stateful.cpuMs), ...cold.stateful },
      stateless: {
        exhausted: b.exhausted,
        schedules: b.schedules,
        steps: b.steps,
        maxSchedules: budget,
        warm: warmBaseline ?? null,
        cold: {
          ms: Math.round(stateless.ms),
          cpuMs: Math.round(stateless.cpuMs),
          ...cold.stateless,
        },
      },
      reduction: {
        factor: Math.round(reduction * 10) / 10,
        of: 'stateless steps / stateful states',
        lowerBound: !b.exhausted,
      },
      notes:
        'value and baseline: medians by CPU time of the warm rounds (states/s of the stateful search, schedules/s of the stateless one; different units of work, so their ratio is no speed-up); extra.warm: both medians and the per-round figures by wall and CPU time; extra.cold: the first search of each kind (the stateful one first in the process)',
    },
  } satisfies BenchResult
}

export default async function explorePackagesBench(): Promise<BenchResult[]> {
  const scenarios: Array<[string, Record<string, unknown>, () => ExploreScenario]> = [
    ['clocks-causal-2each', { nodes: 3, messagesEach: 2 }, () => causal(2)],
    ['mutex-ricart-agrawala-3', { nodes: 3 }, () => mutex(3, ricartAgrawala())],
    ['mutex-ricart-agrawala-4', { nodes: 4 }, () => mutex(4, ricartAgrawala())],
    ['mutex-lamport-4', { nodes: 4 }, () => mutex(4, lamportMutex())],
    // The same scenarios keyed without their dead values (each abstraction's proof is in its file).
    [
      'mutex-ricart-agrawala-4-dead-clocks',
      { nodes: 4, abstraction: 'ricartAgrawalaDeadClocks' },
      () => ({
        ...mutex(4, ricartAgrawala()),
        abstraction: ricartAgrawalaDeadClocks([1, 2, 3, 4]),
      }),
    ],
    [
      'mutex-lamport-4-capped-times',
      { nodes: 4, abstraction: 'lamportCappedTimes' },
      () => ({ ...mutex(4, lamportMutex()), abstraction: lamportCappedTimes([1, 2, 3, 4]) }),
    ],
  ]
  return scenarios
    .filter(([name]) => ONLY === undefined || ONLY.includes(name))
    .map(([name, params, scenario]) => measure(name, params, scenario()))
}
