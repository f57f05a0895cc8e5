/**
 * A run of the resource manager judged from its events alone: `checkDeadlocks`, plus the
 * wait-for graph rebuilt from `waits-for` / `wait-ended` to tell who was deadlocked and for how
 * long, turned into the result and violations every deadlock scenario reports.
 */
import {
  checkDeadlocks,
  cycleKey,
  type DeadlockVerdict,
  type ProcessId,
  type ProcessSpec,
  type TimedDeadlockEvent,
  WaitForGraph,
} from '@sd/deadlock'
import type { NodeId } from '@sd/transport'
import type { Unfinished } from '../../scenario.js'
import { arrow, distinct, ms, sortIds } from './run.js'

/** What a run of the manager did, judged from its events alone. */
export interface Judged {
  verdict: DeadlockVerdict
  /**
   * Every process deadlocked at some moment, in the AND model: on a cycle of the wait-for graph
   * rebuilt from the trace, or waiting (directly or not) for a process on one. The graph is read
   * at the end of each instant of virtual time, and without the waits `preempted` names (a wait
   * whose holder is already being wounded ends without outside help, so no deadlock hangs on it).
   */
  deadlocked: ProcessId[]
  /** Every process on a cycle of the whole rebuilt graph at the end of some instant. */
  onCycle: ProcessId[]
  /** The longest time the whole rebuilt graph had a cycle without a break (ms). */
  longestCycleMs: number
  /** Every `deadlock` report, in order. */
  reports: Array<{ t: number; node: NodeId; cycle: ProcessId[]; victim: ProcessId }>
  /** Cycles centralized detection collected but could not confirm (`phantom` events). */
  dismissed: Array<{ t: number; cycle: ProcessId[] }>
  /** `aborted` events (a process restarted under prevention may be aborted several times). */
  aborts: number
  /** `started` events after a process's first. */
  restarts: number
}

export interface JudgeOptions {
  /** Waits that end by themselves (wound-wait: the holder is being wounded). Default: none. */
  preempted?: (from: ProcessId, to: ProcessId) => boolean
}

export function judge(events: readonly TimedDeadlockEvent[], options: JudgeOptions = {}): Judged {
  const verdict = checkDeadlocks(events)
  /** Every wait, and the waits nothing but a deadlock resolution can end. */
  const whole = new WaitForGraph()
  const firm = new WaitForGraph()
  /** Waits by waiter and resource, as the checker keeps them: waiter → resource → holder. */
  const waits = new Map<string, ProcessId>()
  const edges = new Map<string, number>()
  const edge = (from: ProcessId, to: ProcessId, delta: 1 | -1) => {
    if (from === to) return // a stale request behind its own new hold: it ends, not a deadlock
    const key = JSON.stringify([from, to])
    const count = (edges.get(key) ?? 0) + delta
    edges.set(key, count)
    const graphs = options.preempted?.(from, to) ? [whole] : [whole, firm]
    for (const g of graphs) {
      if (count === 1 && delta === 1) g.addWait(from, to)
      if (count === 0) g.removeWait(from, to)
    }
  }
  const deadlocked = new Set<ProcessId>()
  const onCycle = new Set<ProcessId>()
  let cycleSince: number | undefined
  let longestCycleMs = 0
  const judged: Pick<Judged, 'reports' | 'dismissed' | 'aborts' | 'restarts'> = {
    reports: [],
    dismissed: [],
    aborts: 0,
    restarts: 0,
  }
  const started = new Set<ProcessId>()
  let changed = false
  events.forEach(({ t, node, event }, k) => {
    switch (event.type) {
      case 'waits-for': {
        const key = JSON.stringify([event.from, event.resource])
        const before = waits.get(key)
        if (before !== undefined) edge(event.from, before, -1)
        waits.set(key, event.to)
        edge(event.from, event.to, 1)
        changed = true
        break
      }
      case 'wait-ended': {
        const key = JSON.stringify([event.from, event.resource])
        if (waits.get(key) !== event.to) break
        waits.delete(key)
        edge(event.from, event.to, -1)
        changed = true
        break
      }
      case 'deadlock':
        judged.reports.push({ t, node, cycle: event.cycle, victim: event.victim })
        break
      case 'phantom':
        judged.dismissed.push({ t, cycle: event.cycle })
        break
      case 'aborted':
        judged.aborts++
        break
      case 'started':
        if (started.has(event.process)) judged.restarts++
        started.add(event.process)
        break
    }
    // The state at the end of this instant: who is deadlocked, and whether a cycle stands.
    if (!changed || events[k + 1]?.t === t) return
    changed = false
    for (const p of firm.deadlockedProcesses()) deadlocked.add(p)
    const cycles = whole.stronglyConnectedComponents({ cyclicOnly: true })
    for (const p of cycles.flat()) onCycle.add(p)
    if (cycles.length > 0 && cycleSince === undefined) cycleSince = t
    if (cycles.length === 0 && cycleSince !== undefined) {
      longestCycleMs = Math.max(longestCycleMs, t - cycleSince)
      cycleSince = undefined
    }
  })
  // A cycle left at the end lasted until the last event (the checker reports it as unresolved).
  if (cycleSince !== undefined)
    longestCycleMs = Math.max(longestCycleMs, (events.at(-1)?.t ?? 0) - cycleSince)
  return {
    verdict,
    deadlocked: sortIds(deadlocked),
    onCycle: sortIds(onCycle),
    longestCycleMs,
    ...judged,
  }
}

/** The cycles the reports named, each once whatever process it starts from, in report order. */
export function distinctCycles(reports: Judged['reports']): ProcessId[][] {
  const seen = new Set<string>()
  const out: ProcessId[][] = []
  for (const { cycle } of reports) {
    const key = cycleKey(cycle)
    if (seen.has(key)) continue
    seen.add(key)
    out.push(cycle)
  }
  return out
}

/** The checker's findings, for the JSON result. */
export function checkResult(verdict: DeadlockVerdict): Record<string, unknown> {
  return {
    everDeadlocked: verdict.everDeadlocked,
    phantoms: verdict.phantoms.map((p) => ({ t: ms(p.t), cycle: p.cycle })),
    late: verdict.late,
    unresolved: verdict.unresolved ?? null,
    unreportedVictims: verdict.unreportedVictims,
  }
}

/**
 * The result and violations of a detection run: who was deadlocked, the cycles reported, the
 * victims, who finished and who was aborted, and the checker's findings. Violations: a report of
 * a cycle that never existed, a cycle left at the end, a victim no report named, a process that
 * neither finished nor was aborted.
 */
export function detectionOutcome(
  judged: Judged,
  processes: readonly ProcessSpec[],
): { result: Record<string, unknown>; violations: string[]; unfinished: Unfinished[] } {
  const { verdict, reports } = judged
  const victims = distinct(reports.map((r) => r.victim))
  const violations: string[] = []
  for (const p of verdict.phantoms)
    violations.push(
      `deadlock reported at t=${ms(p.t)} ms for a cycle that never existed: ${arrow(p.cycle)}`,
    )
  for (const p of verdict.unreportedVictims)
    violations.push(`process ${String(p)} was aborted as a victim that no report named`)
  const unfinished: Unfinished[] = []
  if (verdict.unresolved !== undefined)
    unfinished.push({
      what: `the cycle of waits ${arrow(verdict.unresolved)}`,
      why: 'left at the end: no detection broke it',
      expected: false,
    })
  for (const p of processes)
    if (!verdict.finished.has(p.id) && !verdict.aborted.has(p.id))
      unfinished.push({
        what: `process ${String(p.id)}`,
        why: 'neither finished nor was aborted',
        expected: false,
      })
  return {
    violations,
    unfinished,
    result: {
      deadlocked: judged.deadlocked,
      onCycle: judged.onCycle,
      cycles: distinctCycles(reports),
      reports: reports.length,
      victim: victims[0] ?? null,
      victims,
      finished: sortIds(verdict.finished),
      aborted: sortIds(verdict.aborted),
      check: checkResult(verdict),
    },
  }
}

/** Lines after the diagram: who was deadlocked, what was reported, who paid for it. */
export function detectionSummary(judged: Judged): string[] {
  const { verdict, reports } = judged
  const list = (ids: Iterable<ProcessId>) => sortIds(ids).map(String).join(', ') || 'none'
  const cycles = distinctCycles(reports)
  return [
    `deadlocked at some moment (AND model): ${list(judged.deadlocked)}`,
    `cycles reported: ${cycles.length === 0 ? 'none' : cycles.map(arrow).join('; ')} (${reports.length} report(s), ${verdict.late} late)`,
    `victims: ${list(distinct(reports.map((r) => r.victim)))}; finished: ${list(verdict.finished)}; aborted: ${list(verdict.aborted)}`,
  ]
}
