import type { EventKind, ProcessId, VizEvent } from './model.js'

/**
 * Which processes are drawn, and ShiViz's "collapse local events": on each line, a run of two or
 * more local events (neither a send nor a delivery) between two message events is drawn as one
 * mark with their count. Crashes and restarts end a run and stay marks of their own: they are
 * the faults a reader looks for.
 */

/** Never collapsed: they carry a message, or they are a fault. */
const RUN_BREAKS = new Set<EventKind>(['send', 'deliver', 'crash', 'restart'])

/** The processes drawn, in the diagram's order. */
export function shownProcesses(processes: readonly ProcessId[], hidden: ReadonlySet<ProcessId>) {
  return processes.filter((p) => !hidden.has(p))
}

/** A run's name, kept across redraws so that an expanded run stays expanded. */
export function runKey(run: readonly VizEvent[]): string {
  return `${run[0]!.process}:${run[0]!.id}`
}

/**
 * The runs of local events to collapse, per line in the order given (the diagram's playback
 * order). Only the events `shown` takes part: one the filters hide neither counts nor ends a run.
 */
export function localRuns(
  events: readonly VizEvent[],
  shown: (e: VizEvent) => boolean = () => true,
  minLength = 2,
): VizEvent[][] {
  const open = new Map<ProcessId, VizEvent[]>()
  const runs: VizEvent[][] = []
  const close = (p: ProcessId) => {
    const run = open.get(p)
    if (run && run.length >= minLength) runs.push(run)
    open.delete(p)
  }
  for (const e of events) {
    if (!shown(e)) continue
    if (RUN_BREAKS.has(e.kind)) {
      close(e.process)
      continue
    }
    const run = open.get(e.process)
    if (run) run.push(e)
    else open.set(e.process, [e])
  }
  for (const p of [...open.keys()]) close(p)
  return runs
}
