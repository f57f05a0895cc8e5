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
  /** Waits of a process for itself: a request queued behind its own older one (never right). */
  selfWaits: number
  /** Whether the graph had a cycle at some moment (a deadlock happened). */
  everDeadlocked: boolean
  reports: number
  finished: Set<ProcessId>
  aborted: Set<ProcessId>
}

export function checkDeadlocks(events: readonly TimedDeadlockEvent[]): DeadlockVerdict {
  // Waits by waiter and resource: a process normally waits on one lock, but for a moment an
  // aborted request can still be queued beside its new one.
  const graph = new WaitGraph()
  const verdict: DeadlockVerdict = {
    phantoms: [],
    late: 0,
    selfWaits: 0,
    unresolved: undefined,
    unreportedVictims: [],
    everDeadlocked: false,
    reports: 0,
    finished: new Set(),
    aborted: new Set(),
  }
  const named = new Set<ProcessId>()
  /** Every cycle the graph ever had, by `key`: a cycle forms when its last wait starts. */
  const existed = new Set<string>()
  for (const { t, event } of events) {
    switch (event.type) {
      case 'waits-for': {
        if (event.from === event.to) verdict.selfWaits++
        graph.add(event.from, event.resource, event.to)
        const cycle = graph.cycleThrough(event.from, event.to)
        if (cycle !== undefined) {
          verdict.everDeadlocked = true
          existed.add(cycleKey(cycle))
        }
        break
      }
      case 'wait-ended':
        graph.remove(event.from, event.resource, event.to)
        break
      case 'deadlock': {
        verdict.reports++
        named.add(event.victim)
        const { cycle } = event
        const whole = cycle.every((p, i) => graph.has(p, cycle[(i + 1) % cycle.length]!))
        if (whole) break
        if (existed.has(cycleKey(cycle))) verdict.late++
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
  verdict.unresolved = graph.anyCycle()
  return verdict
}

/** The rebuilt wait-for graph: waiter → resource → holder. */
class WaitGraph {
  private readonly out = new Map<ProcessId, Map<string, ProcessId>>()

  add(from: ProcessId, resource: string, to: ProcessId): void {
    const waits = this.out.get(from) ?? new Map<string, ProcessId>()
    waits.set(resource, to)
    this.out.set(from, waits)
  }

  remove(from: ProcessId, resource: string, to: ProcessId): void {
    const waits = this.out.get(from)
    if (waits?.get(resource) === to) waits.delete(resource)
  }

  has(from: ProcessId, to: ProcessId): boolean {
    for (const t of this.out.get(from)?.values() ?? []) if (t === to) return true
    return false
  }

  /** The cycle the wait from → to closes, if it closes one: from, then a path from `to` back. */
  cycleThrough(from: ProcessId, to: ProcessId): ProcessId[] | undefined {
    const parent = new Map<ProcessId, ProcessId>([[to, from]])
    const queue = [to]
    while (queue.length > 0) {
      const p = queue.shift()!
      if (p === from) {
        const path: ProcessId[] = []
        for (let q: ProcessId = from; ; ) {
          const before = parent.get(q)!
          if (before === from) break
          path.unshift(before)
          q = before
        }
        return [from, ...path]
      }
      for (const next of this.out.get(p)?.values() ?? [])
        if (!parent.has(next)) {
          parent.set(next, p)
          queue.push(next)
        }
    }
    return undefined
  }

  /** Some cycle of the graph, if any. */
  anyCycle(): ProcessId[] | undefined {
    for (const [from, waits] of this.out)
      for (const to of waits.values()) {
        const cycle = this.cycleThrough(from, to)
        if (cycle !== undefined) return cycle
      }
    return undefined
  }
}

/** A cycle's name whatever process it starts from (two reports of one cycle share it). */
export function cycleKey(cycle: readonly ProcessId[]): string {
  const names = cycle.map((p) => JSON.stringify(p))
  let best = 0
  for (let i = 1; i < names.length; i++) if (names[i]! < names[best]!) best = i
  return [...names.slice(best), ...names.slice(0, best)].join('>')
}
