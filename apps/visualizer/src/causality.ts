import type { Diagram, ProcessId, VizEvent } from './model.js'

/**
 * Vector and Lamport timestamps from the message pattern alone: every process event ticks its
 * process's entry; a delivery first takes the entry-wise maximum with the timestamp of its send
 * (matched by message id). Lamport: one more than the larger of the process's last value and, for
 * a delivery, the send's. So every trace gets causality, whatever its protocol logs.
 *
 * `events` must be in an order where each send comes before its deliveries (the trace's order).
 */
export function assignClocks(
  events: readonly VizEvent[],
  processes: readonly ProcessId[],
  sendOf: (delivery: VizEvent) => VizEvent | undefined,
): void {
  tickClocks(newClocks(processes), events, 0, sendOf)
}

/** Each process's last vector and Lamport timestamp, so that later events can be stamped alone. */
export interface Clocks {
  index: Map<ProcessId, number>
  current: number[][]
  lamport: number[]
}

export function newClocks(processes: readonly ProcessId[]): Clocks {
  return {
    index: new Map(processes.map((p, i) => [p, i])),
    current: processes.map(() => new Array<number>(processes.length).fill(0)),
    lamport: processes.map(() => 0),
  }
}

/** Stamps `events[from..]`, as `assignClocks` would, after the events `clocks` has seen. */
export function tickClocks(
  clocks: Clocks,
  events: readonly VizEvent[],
  from: number,
  sendOf: (delivery: VizEvent) => VizEvent | undefined,
): void {
  const { index, current, lamport } = clocks
  for (let i = from; i < events.length; i++) {
    const e = events[i]!
    const p = index.get(e.process)
    if (p === undefined) throw new Error(`event ${e.id} on unknown process ${e.process}`)
    const vc = current[p]!.slice()
    let l = lamport[p]!
    if (e.kind === 'deliver') {
      const send = sendOf(e)
      if (send && send.vc.length === vc.length) {
        for (let j = 0; j < vc.length; j++) vc[j] = Math.max(vc[j]!, send.vc[j]!)
        l = Math.max(l, send.lamport)
      }
    }
    vc[p]!++
    e.vc = vc
    e.lamport = l + 1
    current[p] = vc
    lamport[p] = l + 1
  }
}

/** Lamport timestamps for events whose vector clocks are given (a ShiViz log). */
export function assignLamport(
  events: readonly VizEvent[],
  processes: readonly ProcessId[],
  parentsOf: (e: VizEvent) => readonly VizEvent[],
): void {
  const last = new Map<ProcessId, number>(processes.map((p) => [p, 0]))
  for (const e of events) {
    let l = last.get(e.process) ?? 0
    for (const parent of parentsOf(e)) l = Math.max(l, parent.lamport)
    e.lamport = l + 1
    last.set(e.process, l + 1)
  }
}

/**
 * Whether `a` happened before `b` (a → b), by their vector timestamps: with one tick per event,
 * V(a) ≤ V(b) reduces to comparing the entry of a's own process.
 */
export function happenedBefore(a: VizEvent, b: VizEvent, processIndex: number): boolean {
  if (a === b) return false
  return a.vc[processIndex]! <= b.vc[processIndex]!
}

export interface CausalSets {
  past: Set<VizEvent>
  future: Set<VizEvent>
  concurrent: Set<VizEvent>
}

/** Every other event, split into the causal past of `selected`, its future, and the concurrent. */
export function causalSets(diagram: Diagram, selected: VizEvent): CausalSets {
  const index = new Map(diagram.processes.map((p, i) => [p, i]))
  const own = index.get(selected.process)!
  const sets: CausalSets = { past: new Set(), future: new Set(), concurrent: new Set() }
  for (const e of diagram.events) {
    if (e === selected) continue
    if (happenedBefore(e, selected, index.get(e.process)!)) sets.past.add(e)
    else if (happenedBefore(selected, e, own)) sets.future.add(e)
    else sets.concurrent.add(e)
  }
  return sets
}

/** `[2, 1, 0]` */
export function formatVector(vc: readonly number[]): string {
  return `[${vc.join(', ')}]`
}
