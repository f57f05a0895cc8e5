/**
 * The global checks: every node's events at once, against the nemesis's faults, with the
 * simulator's checkers (checks.ts), in the trace's time: ms since the origin, to the microsecond.
 */
import type { EmittedEvent } from '@sd/transport'
import { globalViolations } from '../checks.js'
import type { NodeEvent, RunRecord } from '../summary.js'

export function globalChecks(run: RunRecord): string[] {
  const at = (t: number) => Math.round((t - run.origin) * 1000) / 1000
  const since = <T extends { t: number }>(list: readonly T[]): T[] =>
    list.map((x) => ({ ...x, t: at(x.t) }))
  const emitted = (p: NodeEvent['p']): EmittedEvent[] =>
    run.events.filter((x) => x.p === p).map((x) => ({ node: x.node, t: at(x.t), event: x.e }))
  return globalViolations({
    nodes: run.nodes,
    lock: emitted('lock'),
    election: emitted('election'),
    faults: since(run.faultEvents),
  })
}
