import type { NodeId, TraceEvent } from '@sd/transport'
import { group } from './cells.js'

/** A fault of the run, as the trace recorded it (the `--json` summary lists them). */
export type Fault =
  | { t: number; type: 'crash' | 'restart'; node: NodeId }
  | { t: number; type: 'partition'; groups: NodeId[][] }
  | { t: number; type: 'heal' }

export function faultsOf(trace: readonly TraceEvent[]): Fault[] {
  const faults: Fault[] = []
  for (const e of trace) {
    if (e.type === 'crash' || e.type === 'restart')
      faults.push({ t: e.t, type: e.type, node: e.node })
    else if (e.type === 'partition') faults.push({ t: e.t, type: e.type, groups: e.groups })
    else if (e.type === 'heal') faults.push({ t: e.t, type: e.type })
  }
  return faults
}

/**
 * One line per fault, in time order: `crash of 2, 3 at t=0 ms` (crashes and restarts at the same
 * instant share a line), `partition {1,2} | {3} at t=40 ms`, `heal at t=90 ms`. Requested crashes
 * that never happened (the run ended first) are said too.
 */
export function faultLines(faults: readonly Fault[], requested: readonly NodeId[]): string[] {
  const lines: string[] = []
  for (let i = 0; i < faults.length; i++) {
    const f = faults[i]!
    if (f.type === 'crash' || f.type === 'restart') {
      const nodes = [f.node]
      while (faults[i + 1]?.type === f.type && faults[i + 1]!.t === f.t)
        nodes.push((faults[++i] as { node: NodeId }).node)
      lines.push(`${f.type} of ${nodes.map(String).join(', ')} at t=${ms(f.t)}`)
    } else if (f.type === 'partition') {
      lines.push(`partition ${f.groups.map(group).join(' | ')} at t=${ms(f.t)}`)
    } else {
      lines.push(`heal at t=${ms(f.t)}`)
    }
  }
  const crashed = new Set(faults.flatMap((f) => (f.type === 'crash' ? [f.node] : [])))
  const missed = requested.filter((id) => !crashed.has(id))
  if (missed.length)
    lines.push(`--crash ${missed.map(String).join(',')} never took effect: the run ended first`)
  return lines
}

function ms(t: number): string {
  return `${Number.isInteger(t) ? t : t.toFixed(3)} ms`
}
