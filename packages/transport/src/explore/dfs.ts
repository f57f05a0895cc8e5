/**
 * Depth-first exploration of schedules, stateless: every branch re-executes its prefix from the
 * start, so any protocol code works without hashing its state. Sleep sets (Godefroid) prune
 * orderings that differ only by swapping independent choices: after exploring choice a, a
 * sibling b explores with a asleep as long as the choices made since are independent of a. That
 * keeps one ordering of every equivalence class, hence every terminal state, and visits every
 * state within the bounds. `reduction: 'sleep'` (or false) runs this; the stateless default is
 * source-set DPOR (`dpor.ts`), which starts fewer orderings only to find them asleep.
 */

import { Execution } from './execution.js'
import { shrink } from './shrink.js'
import { formatSchedule, independent, type Token } from './token.js'
import type { ExploreOptions, ExploreResult, ExploreScenario } from './types.js'

export function exploreExhaustive(
  scenario: ExploreScenario,
  options: ExploreOptions = {},
  /** Sees each terminal state's fingerprint (tests compare the sets across reductions). */
  onTerminal?: (fingerprint: string) => void,
): ExploreResult {
  const depth = options.depth ?? 100
  const maxSchedules = options.maxSchedules ?? 100_000
  const reduce = (options.reduction ?? true) !== false
  const terminal = new Set<string>()
  const result: ExploreResult = {
    mode: 'stateless',
    reduction: reduce ? 'sleep' : 'none',
    schedules: 0,
    states: 0,
    transitions: 0,
    executions: 1,
    exhausted: true,
    cutByDepth: 0,
    terminalStates: 0,
    steps: 0,
  }
  let failed: Execution | undefined

  const replayPrefix = (tokens: readonly Token[]): Execution => {
    const exec = new Execution(scenario, false)
    result.executions++
    for (const token of tokens) {
      exec.step(token)
      result.steps++
    }
    return exec
  }

  const visit = (exec: Execution, sleep: Token[]): void => {
    const options_ = exec.options(options)
    if (options_.length === 0 || exec.tokens.length >= depth) {
      result.schedules++
      if (options_.length > 0) result.cutByDepth++
      const fingerprint = exec.fingerprint()
      terminal.add(fingerprint)
      onTerminal?.(fingerprint)
      return
    }
    result.states++
    const asleep = new Set(sleep.map((t) => t.id))
    const done: Token[] = []
    const prefix = [...exec.tokens]
    let fresh: Execution | undefined = exec
    for (const token of options_) {
      if (failed !== undefined) return
      if (reduce && asleep.has(token.id)) continue
      if (result.schedules >= maxSchedules) {
        result.exhausted = false
        return
      }
      const child = fresh ?? replayPrefix(prefix)
      fresh = undefined
      child.step(token)
      result.steps++
      result.transitions++
      if (child.violation !== undefined) {
        failed = child
        return
      }
      const childSleep = reduce ? [...sleep, ...done].filter((s) => independent(s, token)) : []
      visit(child, childSleep)
      done.push(token)
    }
  }

  const root = new Execution(scenario, false)
  if (root.violation !== undefined) failed = root
  else visit(root, [])
  result.terminalStates = terminal.size
  if (failed !== undefined) fail(result, scenario, failed, options)
  return result
}

/** Reports the execution that broke the invariant, with its schedule shrunk. */
export function fail(
  result: ExploreResult,
  scenario: ExploreScenario,
  failed: Execution,
  options: ExploreOptions,
): void {
  result.exhausted = false
  result.counterexample = {
    message: failed.violation!,
    schedule: formatSchedule(failed.tokens),
    shrunk: shrink(scenario, failed.tokens, options),
  }
}
