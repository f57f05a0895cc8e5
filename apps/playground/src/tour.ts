/**
 * `sd tour` (`pnpm demo`): one main scenario of every package, with its diagram and message
 * counts, then where to go next (the visualizer, the cluster). `--all` runs every scenario.
 */
import type { Scenario } from './scenario.js'

/** The scenario that shows each package best, in the order a newcomer meets them. */
export const TOUR: ReadonlyArray<{ pkg: string; scenario: string; why: string }> = [
  {
    pkg: '@sd/transport',
    scenario: 'flood',
    why: 'the simulator: lossy links, a partition, crashes',
  },
  {
    pkg: '@sd/clocks',
    scenario: 'causal-order',
    why: 'vector clocks keep replies behind what they answer',
  },
  {
    pkg: '@sd/mutex',
    scenario: 'mutex-centralized',
    why: 'a lock with fencing tokens and a coordinator failover',
  },
  {
    pkg: '@sd/election',
    scenario: 'election-bully',
    why: "the texts' example: 7 fails, 4 notices, 6 wins, 7 returns",
  },
  {
    pkg: '@sd/timesync',
    scenario: 'berkeley',
    why: 'drifting clocks pulled together, a broken one ignored',
  },
  {
    pkg: '@sd/deadlock',
    scenario: 'deadlock-cmh',
    why: 'probes chase a cycle of waits across sites',
  },
]

/** What to try after the tour. */
export const NEXT_STEPS = `next:
  pnpm sd list                                  every scenario (${'`'}pnpm sd tour --all${'`'} runs them all)
  pnpm --silent sd run causal-order --trace /tmp/trace.json && pnpm visualize /tmp/trace.json
                                                the same run as a space-time diagram in your browser
  pnpm cluster                                  real processes on real sockets: election, lock and
                                                clock sync under chaos (kills, partitions, loss)`

/** The tour's scenarios, in order; throws if the list names one that does not exist. */
export function tourScenarios(
  all: readonly Scenario[],
): Array<{ scenario: Scenario; title: string }> {
  return TOUR.map(({ pkg, scenario, why }) => {
    const found = all.find((s) => s.name === scenario)
    if (found === undefined) throw new Error(`the tour names ${scenario}, which is not registered`)
    return { scenario: found, title: `${pkg}: ${why}` }
  })
}
