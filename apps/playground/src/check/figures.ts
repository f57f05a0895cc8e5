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
  pct: boolean
  elapsedMs: number
}

/** How `describe` names the partial-order reduction that ran (liveness goals turn it off). */
const REDUCTIONS: Record<ExploreResult['reduction'], string> = {
  dpor: 'source-set DPOR with sleep sets',
  sleep: 'sleep sets',
  ample:
    'ample sets (the scenario declares who talks to whom and what the invariant reads) with sleep sets',
  none: 'no partial-order reduction',
}

export function describe({ result, options, pct, elapsedMs }: RunFigures) {
  const time = `${(elapsedMs / 1000).toFixed(1)} s`
  const sleep = REDUCTIONS[result.reduction]
  const search =
    result.mode === 'stateful'
      ? `search: stateful (each global state expanded once; ${sleep}): ${result.states} states, ${result.transitions} transitions, ${result.executions} executions in ${time} (${statesPerSecond(result, elapsedMs)} states/s)`
      : `search: stateless (a protocol without a snapshot: schedules replayed; ${sleep}): ${result.states} states visited, ${result.transitions} transitions, ${result.executions} executions in ${time}`
  const symmetry = result.symmetry
    ? `; symmetry: ${result.symmetry.groups.map((g) => `{${g.map(String).join(', ')}}`).join(' ')} interchangeable, ${result.symmetry.permutations} relabellings a state, ${result.symmetry.merged} states merged`
    : ''
  const others = Object.entries(figuresOf(result)).filter(([key]) => !WORDED.has(key))
  return [
    ...(pct ? [] : [search + symmetry]),
    `schedules: ${result.schedules} (${exhaustedText(result, pct)}); cut by the depth bound ${options.depth ?? 100}: ${result.cutByDepth}`,
    `distinct terminal states: ${result.terminalStates}; steps executed: ${result.steps}; faults injected per schedule at most: ${faultBudget(options)}`,
    ...(others.length === 0
      ? []
      : [`also: ${others.map(([key, value]) => `${key} ${String(value)}`).join(', ')}`]),
  ].join('\n')
}

/** The explorer's fault budget in words: the spec's own (a token ring's one loss) or --faults. */
function faultBudget(options: ExploreOptions): string {
  const kinds = Object.entries(options.faults ?? {}).filter(
    ([kind, count]) => kind !== 'total' && (count ?? 0) > 0,
  )
  if (kinds.length === 0) return '0'
  const total = options.faults?.total
  const each = kinds.map(([kind, count]) => `${kind} ${count}`).join(', ')
  return total === undefined ? each : `${each}; ${total} in all`
}

/** A search's result and its wall time. */
export interface Timed {
  result: ExploreResult
  elapsedMs: number
}

/**
 * --compare: the safety search (no liveness goals, sleep sets as the spec says) run both ways on
 * the same spec and bounds, stateful (undefined when a protocol has no snapshot) and stateless.
 */
export interface Comparison {
  stateful: Timed | undefined
  stateless: Timed
}

/** `a / b` to one decimal, or null when b is 0. */
function ratio(a: number, b: number): number | null {
  return b === 0 ? null : Math.round((a / b) * 10) / 10
}

const side = ({ result, elapsedMs }: Timed) => ({ ...figuresOf(result), elapsedMs })

export function comparisonJson({ stateful, stateless }: Comparison) {
  return {
    stateless: side(stateless),
    ...(stateful === undefined
      ? {}
      : {
          stateful: side(stateful),
          // How many times the stateful search's work the stateless one did (null: 0 to divide by).
          ratio: {
            transitions: ratio(stateless.result.transitions, stateful.result.transitions),
            steps: ratio(stateless.result.steps, stateful.result.steps),
          },
        }),
  }
}

function sideLine(name: string, { result, elapsedMs }: Timed): string {
  const states = result.mode === 'stateful' ? `${result.states} states, ` : ''
  return `compare: ${name}: ${states}${result.schedules} schedules, ${result.transitions} transitions, ${result.steps} steps executed in ${(elapsedMs / 1000).toFixed(1)} s; ${result.exhausted ? 'exhausted' : 'NOT exhausted'}`
}

export function comparisonLines(comparison: Comparison): string[] {
  const { stateful, stateless } = comparison
  const lines = ['compare: the safety search (no liveness goals), same bounds, both ways:']
  if (stateful === undefined)
    return [
      ...lines,
      'compare: stateful: none (a protocol has no snapshot)',
      sideLine('stateless', stateless),
    ]
  const r = comparisonJson(comparison).ratio!
  const times = (x: number | null) => (x === null ? 'n/a' : `${x}x`)
  return [
    ...lines,
    sideLine('stateful', stateful),
    sideLine('stateless', stateless),
    `compare: stateless / stateful: transitions ${times(r.transitions)}, steps executed ${times(r.steps)}${stateless.result.exhausted || !stateful.result.exhausted ? '' : ' (at least: the stateless search stopped at its bound)'}`,
  ]
}
