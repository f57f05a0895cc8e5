/**
 * The runs kept as golden traces under `testdata/`: every scenario as `sd run <name>` runs it
 * (default n, seed 1, the default crash set), the texts' worked examples first.
 */
import { defaults } from './args.js'
import type { GoldenRun } from './golden.js'
import type { Scenario } from './scenario.js'
import { scenarios } from './scenarios/index.js'

/** The examples the course texts work through by hand: a change to them matters most. */
const WORKED_EXAMPLES = [
  'lamport-pqr',
  'make',
  'election-bully',
  'election-ring',
  'mutex-ricart-agrawala',
  'mutex-quorum',
  'deadlock-cmh',
  'cristian',
]

export interface GoldenCase extends GoldenRun {
  /** The file under `testdata/`: `<scenario>.seed<N>.trace`. */
  file: string
  /** Runs the case and returns its trace. */
  scenarioRef: Scenario
}

function caseOf(scenario: Scenario): GoldenCase {
  const { n, seed, crash } = defaults(scenario)
  return {
    scenario: scenario.name,
    n,
    seed,
    crash,
    file: `${scenario.name}.seed${seed}.trace`,
    scenarioRef: scenario,
  }
}

const rank = (name: string) => {
  const i = WORKED_EXAMPLES.indexOf(name)
  return i === -1 ? WORKED_EXAMPLES.length : i
}

/** Worked examples first, then the rest in `sd list` order (a stable sort keeps it). */
export const goldenCases: GoldenCase[] = [...scenarios]
  .sort((a, b) => rank(a.name) - rank(b.name))
  .map(caseOf)
