/**
 * Durable state survives: a restarted node finds in its file a term at least as high as the last
 * it reported before it died.
 */
import type { BootRecord, NodeEvent, RunRecord, Summary } from '../summary.js'

/** Every restart with the term it found, and the restarts that found less than they reported. */
export function restartChecks(
  run: RunRecord,
  rel: (t: number) => number,
): { restarts: Summary['restarts']; violations: string[] } {
  const violations: string[] = []
  const restarts: Summary['restarts'] = []
  const highest = new Map<string, number>()
  type Step = { t: number; node: string; event?: NodeEvent; boot?: BootRecord }
  const timeline: Step[] = [
    ...run.events.map((x): Step => ({ t: x.t, node: x.node, event: x })),
    ...run.boots.map((b): Step => ({ t: b.t, node: b.node, boot: b })),
  ].sort((a, b) => a.t - b.t)
  const booted = new Set<string>()
  for (const step of timeline) {
    if (step.boot !== undefined) {
      const before = highest.get(step.node) ?? 0
      if (booted.has(step.node)) {
        restarts.push({
          node: step.node,
          atMs: rel(step.t),
          storedTerm: step.boot.stored.term,
          termBefore: before,
        })
        if (step.boot.stored.term < before) {
          violations.push(
            `durable state lost at ${step.node}: restarted with term ${step.boot.stored.term} after it reported term ${before}`,
          )
        }
      }
      booted.add(step.node)
      continue
    }
    const e = step.event!
    if (e.p === 'election' && typeof e.e.term === 'number') {
      highest.set(step.node, Math.max(highest.get(step.node) ?? 0, e.e.term))
    }
  }
  return { restarts, violations }
}
