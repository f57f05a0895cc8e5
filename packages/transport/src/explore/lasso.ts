/**
 * A lasso of the state graph as schedules: the graph knows its steps by label (what a choice
 * does), a schedule names events by id (`m:1>2#7` counts sends), so the steps are carried out
 * again from the start, each by its label, and named as they happen.
 */
import { Execution } from './execution.js'
import type { GraphLasso } from './liveness.js'
import type { StateGraph } from './state-graph.js'
import { formatSchedule, type Token } from './token.js'
import type { ExploreOptions, ExploreScenario, Lasso } from './types.js'

export function lassoSchedules(
  scenario: ExploreScenario,
  options: ExploreOptions,
  graph: StateGraph,
  found: GraphLasso,
  goal: string,
): Lasso {
  const exec = new Execution(scenario, false, true)
  const run = (steps: GraphLasso['loop']): Token[] => {
    const start = exec.tokens.length
    for (const [label] of steps) {
      const text = graph.labels[label]!
      const token = exec.options(options).find((t) => (t.label ?? t.id) === text)
      // The graph was built from these very executions: a step not enabled is a bug here.
      if (token === undefined) throw new Error(`explore: lasso step ${text} is not enabled`)
      exec.step(token)
    }
    return exec.tokens.slice(start)
  }
  const prefix = run(found.prefix)
  const first = run(found.loop)
  const second = run(found.loop)
  const steps = (n: number) => `${n} step${n === 1 ? '' : 's'}`
  const what =
    found.kind === 'deadlock'
      ? `nothing is left to happen after ${steps(prefix.length)}`
      : `a fair cycle of ${steps(first.length)} repeats forever after ${steps(prefix.length)}`
  return {
    message: `liveness "${goal}" never holds: ${what}`,
    kind: found.kind,
    prefix: formatSchedule(prefix),
    loop: formatSchedule(first),
    schedule: formatSchedule([...prefix, ...first, ...second]),
  }
}
