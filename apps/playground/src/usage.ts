import type { Scenario } from './scenario.js'
import { wrapToWidth } from './width.js'

/** Bad arguments: the CLI prints the message and the usage, and exits with 2. */
export class UsageError extends Error {}

export const USAGE = `usage:
  sd list                         list the scenarios
  sd run <scenario> [options]     run one scenario in the simulator
  sd run <scenario> --help        what the scenario does, its --n range, when --crash applies
  sd tour [--width N]             run every scenario with its defaults (the demo)
  sd --legend                     the symbols of the diagram
  sd --version                    the version of sd

options of run:
  --n N          number of nodes (each scenario has its range)
  --seed S       integer seed, negative too (--seed -5); the same seed replays the same run (default 1)
  --crash IDS    comma-separated distinct node ids to crash (each scenario says when)
  --json         print one JSON summary instead of the diagram
  --trace FILE   write the full trace (JSON) to FILE; --trace - writes it to stdout and sends
                 the diagram to stderr
  --rows N       rows of the diagram shown at most (default 400)
  --width N      columns the diagram fits in (default: the terminal's width, else 100); when the
                 full view does not fit, a compact one is drawn
  --legend       print the legend of the symbols under the diagram
  --proto NAME   draw only the entries of protocol NAME of a composed protocol (and crashes,
                 restarts, partitions); the trace file keeps everything

exit codes: 0 ok, 1 an invariant was violated (VIOLATIONS) or the run failed, 2 bad arguments`

/** `sd run <scenario> --help`: the usage of run, then what this scenario is. */
export function scenarioHelp(scenario: Scenario): string {
  const n =
    scenario.minN === scenario.maxN
      ? `--n: ${scenario.minN} nodes only`
      : `--n: ${scenario.minN}..${scenario.maxN} (default ${scenario.defaultN})`
  const first = scenario.firstId ?? 1
  const last = first === 0 ? 'n-1' : first === 1 ? 'n' : `${first}+n-1`
  const ids = `nodes: ${first}..${last}`
  return [
    `sd run ${scenario.name}: ${scenario.title}`,
    '',
    ...wrapToWidth(scenario.description, 100),
    '',
    n,
    ids,
    ...wrapToWidth(
      `--crash: ${scenario.crashes ?? 'not accepted (this scenario has no failures to show)'}`,
      100,
      Number.POSITIVE_INFINITY,
      98,
    ).map((line, i) => (i === 0 ? line : `  ${line}`)),
    '',
    USAGE,
  ].join('\n')
}
