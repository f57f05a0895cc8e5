/**
 * The register: the counter equals the acknowledged increments exactly, no accepted write lost
 * another (the store's anomalies), and the nodes' history agrees (every increment acknowledged to
 * a node is in, nothing beyond the indeterminate writes).
 */
import { historyViolations } from '../history.js'
import type { RunRecord } from '../summary.js'

export function registerViolations(run: RunRecord): string[] {
  const violations: string[] = []
  if (run.store.counter !== run.store.acknowledged) {
    violations.push(
      `counter ${run.store.counter} differs from the ${run.store.acknowledged} acknowledged increments`,
    )
  }
  violations.push(...run.anomalies)
  violations.push(...historyViolations(run.history, run.store.counter))
  return violations
}
