import type { NodeId } from '@sd/transport'
import { type Fault, faultsOf } from './faults.js'
import type { ScenarioRun } from './scenario.js'

/** The `--json` summary of a run: the contract every scenario shares. */
export interface RunSummary {
  scenario: string
  seed: number
  nodes: NodeId[]
  messages: { total: number; byType: Record<string, number> }
  virtualTimeMs: number
  result: Record<string, unknown>
  violations: string[]
  /** Crashes, restarts, partitions and heals, in time order, as the trace recorded them. */
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
