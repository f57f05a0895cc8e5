/**
 * The figures of an `sd check` run, as text and as JSON: which search ran, its states,
 * transitions and rate, whether it was exhausted, and (with --compare) the stateless search on
 * the same bounds beside it. Figures of `ExploreResult` this file does not know yet (the explorer
 * may gain reductions) are passed through to the JSON and listed in the text as they are.
 */
import type { ExploreOptions, ExploreResult } from '@sd/transport/explore'

/** The fields of `ExploreResult` reported on their own (the rest are figures as they come). */
const NOT_FIGURES = new Set(['mode', 'counterexample', 'liveness'])
/** The figures `describe` already words; any other number or boolean is listed as it is. */
const WORDED = new Set([
  'schedules',
  'executions',
  'exhausted',
  'states',
  'transitions',
  'cutByDepth',
  'terminalStates',
  'steps',
])

/** Every plain figure of the result (numbers and booleans), known ones and new ones alike. */
export function figuresOf(result: ExploreResult): Record<string, number | boolean> {
  const out: Record<string, number | boolean> = {}
  for (const [key, value] of Object.entries(result))
    if (!NOT_FIGURES.has(key) && (typeof value === 'number' || typeof value === 'boolean'))
      out[key] = value
  return out
}

/** States expanded per second of wall time (stateful search; 0 for the stateless one). */
export function statesPerSecond(result: ExploreResult, elapsedMs: number): number {
  return result.mode === 'stateful'
    ? Math.round((result.states / Math.max(elapsedMs, 1)) * 1000)
    : 0
}

/** What `exhausted` means for the search that ran (see the transport README). */
export function exhaustedText(result: ExploreResult, pct: boolean): string {
  if (pct) return 'random (PCT) runs: not exhaustive'
  if (!result.exhausted)
    return 'NOT exhausted (schedule or state limit, or stopped at the counterexample)'
  return result.mode === 'stateful'
    ? 'exhausted within the bounds: every reachable state expanded'
    : 'exhausted within the bounds: every schedule up to the reduction run'
}

export interface RunFigures {
  result: ExploreResult
  options: ExploreOptions
  faults: number
  pct: boolean
  elapsedMs: number
  /** Whether the sleep-set reduction was on (liveness goals turn it off). */
  reduction: boolean
}

export function describe({ result, options, faults, pct, elapsedMs, reduction }: RunFigures) {
  const time = `${(elapsedMs / 1000).toFixed(1)} s`
  const sleep = reduction ? 'sleep sets on' : 'sleep sets off'
  const search =
    result.mode === 'stateful'
      ? `search: stateful (each global state expanded once; ${sleep}): ${result.states} states, ${result.transitions} transitions, ${result.executions} executions in ${time} (${statesPerSecond(result, elapsedMs)} states/s)`
      : `search: stateless (a protocol without a snapshot: schedules replayed; ${sleep}): ${result.states} states visited, ${result.transitions} transitions, ${result.executions} executions in ${time}`
  const others = Object.entries(figuresOf(result)).filter(([key]) => !WORDED.has(key))
  return [
    ...(pct ? [] : [search]),
    `schedules: ${result.schedules} (${exhaustedText(result, pct)}); cut by the depth bound ${options.depth ?? 100}: ${result.cutByDepth}`,
    `distinct terminal states: ${result.terminalStates}; steps executed: ${result.steps}; faults injected at most: ${faults}`,
    ...(others.length === 0
      ? []
      : [`also: ${others.map(([key, value]) => `${key} ${String(value)}`).join(', ')}`]),
  ].join('\n')
}

/** The stateless sleep-set search on the same spec and bounds, beside the run (--compare). */
export interface Comparison {
  result: ExploreResult
  elapsedMs: number
}

/** `a / b` to one decimal, or "n/a" when b is 0. */
function ratio(a: number, b: number): number | null {
  return b === 0 ? null : Math.round((a / b) * 10) / 10
}

export function comparisonJson(run: ExploreResult, other: Comparison) {
  return {
    search: other.result.mode,
    ...figuresOf(other.result),
    elapsedMs: other.elapsedMs,
    // How many times the work of the run the stateless search did (null: nothing to divide by).
    ratio: {
      transitions: ratio(other.result.transitions, run.transitions),
      steps: ratio(other.result.steps, run.steps),
    },
  }
}

export function comparisonLines(run: ExploreResult, other: Comparison): string[] {
  const c = other.result
  const { ratio: r } = comparisonJson(run, other)
  const times = (x: number | null) => (x === null ? 'n/a' : `${x}x`)
  return [
    `compare: stateless sleep-set search, same bounds: ${c.schedules} schedules (${exhaustedText(c, false)}), ${c.transitions} transitions, ${c.steps} steps executed, in ${(other.elapsedMs / 1000).toFixed(1)} s`,
    `compare: stateless / this run: transitions ${times(r.transitions)}, steps executed ${times(r.steps)}${run.mode === 'stateless' ? ' (this run was stateless too)' : ''}`,
  ]
}
