/** `sd check --help` and `sd check <scenario> --help`. */
import { wrapToWidth } from '../width.js'
import { checks } from './index.js'
import { type CheckSpec, defaultsAt, whatAt } from './spec.js'

/** The explorer's own bounds when a spec sets none (as `describe` reports them). */
const DEPTH = 100
const MAX_SCHEDULES = 100_000

export const CHECK_USAGE = [
  'usage: sd check <scenario> [options]',
  '',
  'Explores every ordering of messages and timers of a small configuration of the scenario in the',
  'simulator (or random PCT runs with --pct), checks its invariant after every step, and prints the',
  "first counterexample, shrunk, with its diagram. The scenario's liveness goals are checked on the",
  "stateful search's state graph: each is holds, a lasso (a fair run that never reaches it: its",
  'prefix and loop, and how to replay it), not reached within the bound, or search incomplete.',
  '',
  ...wrapToWidth(`scenarios: ${checks.map((c) => c.scenario).join(', ')}`, 100),
  '',
  'options:',
  '  --n N               nodes (each scenario has its range; sd check <scenario> --help)',
  `  --depth D           steps per schedule at most, 1..10000 (default: the scenario's, else ${DEPTH})`,
  '  --faults K          inject up to K faults per schedule (loss, duplicate, crash), 0..5 (default 0)',
  `  --max-schedules M   stop after M schedules, 1..100000000 (default ${MAX_SCHEDULES})`,
  '  --max-states M      stop the stateful search after M states, 1..1000000000 (default: the',
  "                      scenario's, else 1000000); a search stopped so is NOT exhausted",
  '  --progress N        every N states, print the states, transitions and rate so far to stderr',
  '  --pct RUNS          RUNS random PCT runs (depth 3) instead of the exhaustive search',
  '  --no-liveness       check the invariant only (with the sleep sets that liveness turns off)',
  '  --symmetry          merge states that differ only by renaming interchangeable nodes (specs that',
  '                      declare them: causal-order); prints the groups and states merged; no liveness',
  '  --compare           also run the safety search stateful and stateless on the same bounds, and',
  '                      print both and their ratio (the stateless one may take far longer)',
  "  --replay SCHEDULE   replay SCHEDULE (a counterexample's or a lasso's) exactly, and draw it",
  '  --json              print one JSON object instead of the text',
  '  --trace FILE        write the trace of the replayed counterexample (or lasso) to FILE',
  '  --help              this text; with a scenario, also what its check explores',
  '',
  'exit codes: 0 the invariant held in every schedule explored and no liveness goal has a lasso,',
  '1 a counterexample or a lasso was found (or the run failed; --replay: the invariant broke or a',
  'step was not pending), 2 bad arguments',
].join('\n')

/** The usage, after what `spec` explores and its --n range. */
export function checkSpecHelp(spec: CheckSpec): string {
  const n =
    spec.minN === spec.maxN
      ? `--n: ${spec.minN} nodes only`
      : `--n: ${spec.minN}..${spec.maxN} (default ${spec.defaultN})`
  const depth = defaultsAt(spec, spec.defaultN).depth ?? DEPTH
  return [
    `sd check ${spec.scenario} (n=${spec.defaultN}):`,
    ...wrapToWidth(whatAt(spec, spec.defaultN), 100),
    '',
    n,
    `--depth: default ${depth}`,
    ...(spec.liveness === undefined
      ? ['liveness: no goals (safety only)']
      : spec.liveness(spec.defaultN).flatMap((goal) => wrapToWidth(`liveness: ${goal.name}`, 100))),
    '',
    CHECK_USAGE,
  ].join('\n')
}
