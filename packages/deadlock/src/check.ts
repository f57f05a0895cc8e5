/**
 * Judges a run of the resource manager from its events alone: the wait-for graph is rebuilt from
 * `waits-for` / `wait-ended`, every `deadlock` report must name a cycle that existed, all its
 * waits at one moment, at or before the report (a phantom is one that never did), the graph at
 * the end must have no cycle left (none missed), and every process aborted as a victim must have
 * been named by a report. A report of a cycle that another detection has already broken is not a
 * phantom but late: two initiators of one cycle both see their probe return. It is counted.
 */
import type { NodeId } from '@sd/transport'
import type { DeadlockManagerEvent, ProcessId } from './contract.js'

export interface TimedDeadlockEvent {
  t: number
  node: NodeId
  event: DeadlockManagerEvent
}

export interface DeadlockVerdict {
  /** Reports of a cycle that never existed (its waits never all at once). */
  phantoms: Array<{ t: number; cycle: ProcessId[] }>
  /** Reports of a real cycle already broken when they were made (by another victim's abort). */
  late: number
  /** A cycle left in the graph at the end, if any. */
  unresolved: ProcessId[] | undefined
  /** Processes aborted as deadlock victims that no report named. */
  unreportedVictims: ProcessId[]
  /** Whether the graph had a cycle at some moment (a deadlock happened). */
  everDeadlocked: boolean
  reports: number
  finished: Set<ProcessId>
  aborted: Set<ProcessId>
}

export function checkDeadlocks(events: readonly TimedDeadlockEvent[]): DeadlockVerdict {
  // One outstanding request per process: at most one wait out of each process at a time.
  const waitOf = new Map<ProcessId, ProcessId>()
  const verdict: DeadlockVerdict = {
    phantoms: [],
    late: 0,
    unresolved: undefined,
    unreportedVictims: [],
    everDeadlocked: false,
    reports: 0,
    finished: new Set(),
    aborted: new Set(),
  }
  const named = new Set<ProcessId>()
  /** Every cycle the graph ever had, by `key` (in a graph of single waits, one closes at a time). */
  const existed = new Set<string>()
  for (const { t, event } of events) {
    switch (event.type) {
      case 'waits-for': {
        waitOf.set(event.from, event.to)
        const cycle = cycleThrough(waitOf, event.from)
        if (cycle !== undefined) {
          verdict.everDeadlocked = true
          existed.add(key(cycle))
        }
        break
      }
      case 'wait-ended':
        if (waitOf.get(event.from) === event.to) waitOf.delete(event.from)
        break
      case 'deadlock': {
        verdict.reports++
        named.add(event.victim)
        const { cycle } = event
        const whole = cycle.every((p, i) => waitOf.get(p) === cycle[(i + 1) % cycle.length])
        if (whole) break
        if (existed.has(key(cycle))) verdict.late++
        else verdict.phantoms.push({ t, cycle })
        break
      }
      case 'aborted':
        verdict.aborted.add(event.process)
        if (event.reason === 'deadlock-victim' && !named.has(event.process))
          verdict.unreportedVictims.push(event.process)
        break
      case 'finished':
        verdict.finished.add(event.process)
        break
    }
  }
  for (const p of waitOf.keys()) {
    const cycle = cycleThrough(waitOf, p)
    if (cycle !== undefined) {
      verdict.unresolved = cycle
      break
    }
  }
  return verdict
}

/** The cycle `start` lies on, following each process's single wait, if any. */
function cycleThrough(
  waitOf: ReadonlyMap<ProcessId, ProcessId>,
  start: ProcessId,
): ProcessId[] | undefined {
  const path: ProcessId[] = []
  const seen = new Set<ProcessId>()
  let p: ProcessId | undefined = start
  while (p !== undefined && !seen.has(p)) {
    seen.add(p)
    path.push(p)
    p = waitOf.get(p)
  }
  if (p === undefined) return undefined
  return path.slice(path.indexOf(p))
}

/** A cycle's name whatever process it starts from. */
function key(cycle: readonly ProcessId[]): string {
  const names = cycle.map((p) => JSON.stringify(p))
  let best = 0
  for (let i = 1; i < names.length; i++) if (names[i]! < names[best]!) best = i
  return [...names.slice(best), ...names.slice(0, best)].join('>')
}
