/**
 * PCT, probabilistic concurrency testing (Burckhardt et al.), for spaces too large to exhaust.
 * Each node gets a random distinct priority; every step runs the pending event of the node with
 * the highest priority; at d - 1 random steps the node that just ran drops below all others. For
 * n nodes and schedules of at most k steps, a run finds a given bug of depth d (one that needs d
 * ordering constraints) with probability at least 1 / (n k^(d-1)); `runs` independent runs miss it
 * with probability at most (1 - that)^runs.
 */
import type { NodeId } from '../ids.js'
import { createRandom } from '../random.js'
import { Execution } from './execution.js'
import { shrink } from './shrink.js'
import { formatSchedule } from './token.js'
import type { ExploreOptions, ExploreResult, ExploreScenario } from './types.js'

export interface PctOptions {
  runs: number
  /** The bug depth aimed at: d - 1 priority change points per run. */
  d: number
  seed?: number | string
}

export interface PctResult extends ExploreResult {
  /** The probability, per run, of finding any given bug of depth d (the lower bound above). */
  perRunBound: number
}

export function explorePct(
  scenario: ExploreScenario,
  pct: PctOptions,
  options: ExploreOptions = {},
): PctResult {
  const k = options.depth ?? 100
  const random = createRandom(`pct/${pct.seed ?? 1}`)
  const terminal = new Set<string>()
  const result: PctResult = {
    mode: 'stateless',
    reduction: 'none',
    schedules: 0,
    states: 0,
    transitions: 0,
    executions: 0,
    exhausted: false,
    cutByDepth: 0,
    terminalStates: 0,
    steps: 0,
    perRunBound: 0,
  }
  let nodes = 0
  for (let run = 0; run < pct.runs; run++) {
    const exec = new Execution(scenario, false)
    result.executions++
    const ids = exec.net.nodeIds
    nodes = ids.length
    // Distinct priorities d .. d + n - 1 in random order; change points get d - 1 .. 1.
    const order = [...ids]
    for (let i = order.length - 1; i > 0; i--) {
      const j = random.int(0, i)
      ;[order[i], order[j]] = [order[j]!, order[i]!]
    }
    const priority = new Map<NodeId, number>(order.map((id, i) => [id, pct.d + i]))
    const changes = new Map<number, number>()
    for (let c = 1; c < pct.d; c++) changes.set(random.int(1, k), pct.d - c)
    let steps = 0
    while (exec.violation === undefined && steps < k) {
      const options_ = exec.options(options).filter((t) => t.how === 'happen')
      if (options_.length === 0) break
      let pick = options_[0]!
      const rank = (owner: NodeId | undefined) =>
        owner === undefined ? Number.POSITIVE_INFINITY : (priority.get(owner) ?? 0)
      for (const t of options_) if (rank(t.owner) > rank(pick.owner)) pick = t
      exec.step(pick)
      steps++
      result.steps++
      result.states++
      result.transitions++
      const lowered = changes.get(steps)
      if (lowered !== undefined && pick.owner !== undefined) priority.set(pick.owner, lowered)
    }
    result.schedules++
    if (steps >= k && exec.options(options).length > 0) result.cutByDepth++
    terminal.add(exec.fingerprint())
    if (exec.violation !== undefined) {
      result.counterexample = {
        message: exec.violation,
        schedule: formatSchedule(exec.tokens),
        shrunk: shrink(scenario, exec.tokens, options),
      }
      break
    }
  }
  result.terminalStates = terminal.size
  result.perRunBound = 1 / (Math.max(1, nodes) * k ** (pct.d - 1))
  return result
}
