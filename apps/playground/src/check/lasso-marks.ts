/**
 * The trace of a replayed lasso, "drawn": `mark` events where the prefix ends (`lasso: loop
 * begins`) and where each turn of the loop ends (`lasso: loop turn 1 ends`, ...), so a viewer can
 * tell the prefix from the loop. The lasso's schedule is its prefix, then its loop twice; each
 * mark goes where the replay of the schedule up to that point ends (replays are deterministic,
 * so that replay's trace is the beginning of the whole one).
 */
import type { TraceDocument, TraceEvent } from '@sd/transport'
import { type ExploreScenario, type Lasso, replay } from '@sd/transport/explore'

export const LOOP_BEGINS = 'lasso: loop begins'
export const DEADLOCK = 'lasso: nothing is left to happen'
export const turnEnds = (turn: number) => `lasso: loop turn ${turn} ends`

/** Where each mark goes: after how many steps of the schedule, and its label. */
function cuts(lasso: Lasso): Array<{ steps: number; label: string }> {
  const count = (s: string) => (s.trim() === '' ? 0 : s.trim().split(/\s+/).length)
  const prefix = count(lasso.prefix)
  const loop = count(lasso.loop)
  if (loop === 0) return [{ steps: prefix, label: DEADLOCK }]
  const turns = Math.round((count(lasso.schedule) - prefix) / loop)
  return [
    { steps: prefix, label: LOOP_BEGINS },
    ...Array.from({ length: turns }, (_, i) => ({
      steps: prefix + loop * (i + 1),
      label: turnEnds(i + 1),
    })),
  ]
}

/** The lasso replayed exactly (as `sd check` draws it), with its marks. */
export function markedLassoTrace(scenario: ExploreScenario, lasso: Lasso): TraceDocument {
  const whole = replay(scenario, lasso.schedule, { maxSteps: 0 }).net
  const steps = lasso.schedule.trim() === '' ? [] : lasso.schedule.trim().split(/\s+/)
  const events: TraceEvent[] = []
  let from = 0
  for (const { steps: n, label } of cuts(lasso)) {
    const part = replay(scenario, steps.slice(0, n).join(' '), { maxSteps: 0 }).net
    const end = part.trace.length
    events.push(...whole.trace.slice(from, end), { t: part.now, type: 'mark', label })
    from = end
  }
  events.push(...whole.trace.slice(from))
  return { ...whole.traceDocument(), events }
}
