/**
 * `sd tour` (`pnpm demo`): one main scenario of every package, with its diagram and message
 * counts, then where to go next (the visualizer, the cluster). `--all` runs every scenario.
 */
import type { Scenario } from './scenario.js'
import { wrapToWidth } from './width.js'

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

/** What to try after the tour: a command and what it shows. */
const NEXT: ReadonlyArray<{ command: string; what: string }> = [
  { command: 'pnpm sd list', what: 'every scenario (`pnpm sd tour --all` runs them all)' },
  {
    command:
      'pnpm --silent sd run causal-order --trace /tmp/trace.json && pnpm visualize /tmp/trace.json',
    what: 'the same run as a space-time diagram in your browser',
  },
  {
    command: 'pnpm cluster',
    what: 'real processes on real sockets: election, lock and clock sync under chaos (kills, partitions, loss)',
  },
]

/** Where a command's description starts in the two-column form. */
const WHAT_COLUMN = 48
/** The narrowest description column worth having; below it descriptions go under commands. */
const MIN_WHAT = 40

/**
 * The `next:` block for a terminal of `width` columns: commands and what they do side by side
 * when there is room, else each command with its description indented under it; wrapped between
 * words, never past `width`.
 */
export function nextSteps(width: number): string {
  const lines = ['next:']
  const room = width - WHAT_COLUMN
  for (const { command, what } of NEXT) {
    const side = room >= MIN_WHAT
    // A command too long for its column, or for a line, goes on lines of its own (indented
    // further when it goes on), its description under it.
    const alone = !side || command.length + 2 >= WHAT_COLUMN
    if (alone)
      for (const [i, part] of wrapToWidth(command, width - 2, Infinity, width - 4).entries())
        lines.push(`${i === 0 ? '  ' : '    '}${part}`)
    const at = side ? WHAT_COLUMN : 6
    for (const [i, part] of wrapToWidth(what, width - at).entries())
      lines.push(i === 0 && !alone ? `  ${command}`.padEnd(at) + part : ' '.repeat(at) + part)
  }
  return lines.join('\n')
}

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
