import type { NodeId } from '@sd/transport'
import { type Fault, faultsOf } from './faults.js'
import type { ScenarioRun, Unfinished } from './scenario.js'

/** The `--json` summary of a run: the contract every scenario shares. */
export interface RunSummary {
  scenario: string
  seed: number
  nodes: NodeId[]
  messages: { total: number; byType: Record<string, number> }
  virtualTimeMs: number
  result: Record<string, unknown>
  violations: string[]
  /**
   * Violations the scenario is built to show (mutex-quorum's): they happened as intended and
   * do not fail the run (exit 0). Empty for every other scenario.
   */
  expectedViolations: string[]
  /**
   * What the scenario promised would happen (requests served, a leader agreed, clocks
   * converged) and what was left undone, with why. `held` is false when something was left
   * undone that the algorithm does not block on by design (exit 1, as for a violation).
   */
  liveness: { property: string; held: boolean; unfinished: Unfinished[] } | null
  /**
   * Crashes, restarts, partitions, heals, pauses, resumes and clock steps, in time order, as the
   * trace recorded them.
   */
  faults: Fault[]
}

export function summarize(scenario: string, seed: number, run: ScenarioRun): RunSummary {
  const stats = run.net.stats
  return {
    scenario,
    seed,
    nodes: run.net.nodeIds,
    messages: { total: stats.sent, byType: stats.byType },
    virtualTimeMs: run.net.now,
    result: run.result,
    violations: run.violations,
    expectedViolations: run.expectedViolations ?? [],
    liveness: run.liveness
      ? {
          property: run.liveness.property,
          held: run.liveness.unfinished.every((u) => u.expected),
          unfinished: run.liveness.unfinished,
        }
      : null,
    faults: faultsOf(run.net.trace),
  }
}

export function messageCounts(summary: RunSummary): string {
  const byType = Object.entries(summary.messages.byType)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([type, count]) => `${type} ${count}`)
    .join(', ')
  return `messages sent: ${summary.messages.total}${byType ? ` (${byType})` : ''}; virtual time ${summary.virtualTimeMs.toFixed(3)} ms`
}

/** Whether the run failed: a violated invariant, or a liveness promise not kept. */
export function failed(summary: RunSummary): boolean {
  return summary.violations.length > 0 || summary.liveness?.held === false
}

/** Lines for humans: the intended finding first, then the verdict on the invariants. */
export function invariantLines(summary: RunSummary): string[] {
  const expected = summary.expectedViolations
  const intended = expected.length
    ? [
        'EXPECTED VIOLATION (what this scenario is built to show; it does not fail the run):',
        ...expected.map((v) => `  - ${v}`),
      ]
    : []
  if (summary.violations.length)
    return [...intended, 'VIOLATIONS:', ...summary.violations.map((v) => `  - ${v}`)]
  return [
    ...intended,
    expected.length ? 'invariants: no violation besides the expected one' : 'invariants: all held',
  ]
}

/** Lines for humans: what liveness promised, and what was left undone, with why. */
export function livenessLines(summary: RunSummary): string[] {
  const l = summary.liveness
  if (l === null) return []
  if (l.unfinished.length === 0) return [`liveness: held (${l.property})`]
  const failing = l.unfinished.filter((u) => !u.expected)
  const expected = l.unfinished.filter((u) => u.expected)
  const item = (u: Unfinished) => `  - ${u.what}: ${u.why}`
  return [
    ...(failing.length
      ? [`LIVENESS FAILED (${l.property}):`, ...failing.map(item)]
      : [`liveness: held where the algorithm promises it (${l.property})`]),
    ...(expected.length
      ? [
          'left undone because the algorithm blocks here, as its description says:',
          ...expected.map(item),
        ]
      : []),
  ]
}
