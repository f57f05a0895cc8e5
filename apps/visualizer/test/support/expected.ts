/**
 * What a trace should look like once drawn, computed from the trace itself, independently of
 * the page's code: the tests compare the page with these.
 */
import type { TraceDocument, TraceEvent } from '@sd/transport'

const GLOBAL = new Set(['partition', 'heal'])
const NETWORK = new Set(['drop', 'duplicate'])

/** Trace indices of the process events: sends, deliveries, and every entry with a `node`. */
export function processEvents(doc: TraceDocument): number[] {
  return doc.events.flatMap((e, i) => (GLOBAL.has(e.type) || NETWORK.has(e.type) ? [] : [i]))
}

/** The process an event happens at. */
export function processOf(e: TraceEvent): string {
  if (e.type === 'send') return String(e.from)
  if (e.type === 'deliver') return String(e.to)
  return String((e as { node: unknown }).node)
}

/**
 * Arrows: one per delivery or drop of a message, and one per copy (1, or 2 when duplicated)
 * that neither reached nor was dropped by the end of the trace.
 */
export function expectedArrows(doc: TraceDocument): { total: number; ids: Set<string> } {
  const copies = new Map<number, number>()
  const outcomes = new Map<number, number>()
  for (const e of doc.events) {
    if (e.type === 'send') copies.set(e.id, 1)
    else if (e.type === 'duplicate') copies.set(e.id, (copies.get(e.id) ?? 1) + 1)
    else if (e.type === 'deliver' || e.type === 'drop')
      outcomes.set(e.id, (outcomes.get(e.id) ?? 0) + 1)
  }
  let total = 0
  const ids = new Set<string>()
  for (const id of new Set([...copies.keys(), ...outcomes.keys()])) {
    total += Math.max(copies.get(id) ?? 0, outcomes.get(id) ?? 0)
    ids.add(String(id))
  }
  return { total, ids }
}

/**
 * The happened-before relation as a graph: each process event points to the next event of its
 * process and, for a send, to the deliveries of its message. Past of e: every event with a path
 * to e; future: every event e has a path to. Breadth-first search, no clocks involved.
 */
export function causalPastFuture(doc: TraceDocument, selected: number) {
  const events = processEvents(doc)
  const next = new Map<number, number[]>()
  const prev = new Map<number, number[]>()
  const edge = (a: number, b: number) => {
    next.set(a, [...(next.get(a) ?? []), b])
    prev.set(b, [...(prev.get(b) ?? []), a])
  }
  const last = new Map<string, number>()
  const sendOf = new Map<number, number>()
  for (const i of events) {
    const e = doc.events[i]!
    const p = processOf(e)
    const before = last.get(p)
    if (before !== undefined) edge(before, i)
    last.set(p, i)
    if (e.type === 'send') sendOf.set(e.id, i)
    if (e.type === 'deliver' && sendOf.has(e.id)) edge(sendOf.get(e.id)!, i)
  }
  const reach = (from: number, links: Map<number, number[]>) => {
    const seen = new Set<number>()
    const queue = [from]
    while (queue.length > 0) {
      for (const j of links.get(queue.shift()!) ?? []) {
        if (!seen.has(j)) {
          seen.add(j)
          queue.push(j)
        }
      }
    }
    return seen
  }
  return { past: reach(selected, prev), future: reach(selected, next) }
}
