import {
  type FaultEvent,
  faultsOf as faultsOfTrace,
  type NodeId,
  type TraceEvent,
} from '@sd/transport'
import { group } from './cells.js'
import { faultFlag, type PlannedFault } from './fault-plan.js'

/**
 * A fault of the run, as the trace recorded it (the `--json` summary lists them): crashes,
 * restarts, partitions, heals, loss, pauses, resumes and clock steps.
 */
export type Fault = FaultEvent

export function faultsOf(trace: readonly TraceEvent[]): Fault[] {
  return faultsOfTrace(trace)
}

/**
 * One line per fault, in time order: `crash of 2, 3 at t=0 ms` (crashes, restarts, pauses or
 * resumes of one kind at the same instant share a line), `partition {1,2} | {3} at t=40 ms`,
 * `heal at t=90 ms`, `clock step of 1 by -500 ms at t=40 ms`. Requested crashes and planned
 * pauses or steps that never happened (the run ended first, the node was down) are said too.
 */
export function faultLines(
  faults: readonly Fault[],
  requested: readonly NodeId[],
  planned: readonly PlannedFault[] = [],
): string[] {
  const lines: string[] = []
  for (let i = 0; i < faults.length; i++) {
    const f = faults[i]!
    if (f.type === 'crash' || f.type === 'restart' || f.type === 'pause') {
      const nodes = [f.node]
      for (
        let next = faults[i + 1];
        next?.type === f.type && next.t === f.t && 'node' in next;
        next = faults[++i + 1]
      )
        nodes.push(next.node)
      lines.push(`${f.type} of ${nodes.map(String).join(', ')} at t=${ms(f.t)}`)
    } else if (f.type === 'resume') {
      lines.push(
        `resume of ${String(f.node)} at t=${ms(f.t)} (${f.backlog} held event${f.backlog === 1 ? '' : 's'} handled now)`,
      )
    } else if (f.type === 'clock-step') {
      lines.push(
        `clock step of ${String(f.node)} by ${f.deltaMs > 0 ? '+' : ''}${f.deltaMs} ms at t=${ms(f.t)} (wall clock only)`,
      )
    } else if (f.type === 'partition') {
      lines.push(`partition ${f.groups.map(group).join(' | ')} at t=${ms(f.t)}`)
    } else if (f.type === 'loss') {
      lines.push(
        f.percent > 0 ? `loss of ${f.percent}% from t=${ms(f.t)}` : `loss ended at t=${ms(f.t)}`,
      )
    } else {
      lines.push(`heal at t=${ms(f.t)}`)
    }
  }
  const crashed = new Set(faults.flatMap((f) => (f.type === 'crash' ? [f.node] : [])))
  const missed = requested.filter((id) => !crashed.has(id))
  if (missed.length)
    lines.push(`--crash ${missed.map(String).join(',')} never took effect: the run ended first`)
  for (const p of planned) {
    const happened = faults.some((f) => f.type === p.type && f.node === p.node && f.t === p.at)
    if (!happened) lines.push(`${faultFlag(p)} never took effect: ${whyNot(p, faults)}`)
  }
  return lines
}

/** A planned fault missing from the trace: its node was down then, or the run ended first. */
function whyNot(p: PlannedFault, faults: readonly Fault[]): string {
  let down = false
  for (const f of faults) {
    if (f.t > p.at) break
    if (f.type === 'crash' && f.node === p.node) down = true
    if (f.type === 'restart' && f.node === p.node) down = false
  }
  return down ? `node ${String(p.node)} was down (crashed) at t=${ms(p.at)}` : 'the run ended first'
}

function ms(t: number): string {
  return `${Number.isInteger(t) ? t : t.toFixed(3)} ms`
}
