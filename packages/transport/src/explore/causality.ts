/**
 * Happens-before from a trace, for invariants that must not depend on the order in which
 * independent events were explored: a vector clock for every emitted event (a node's events in
 * order; a delivery after its send).
 */
import type { NodeId } from '../ids.js'
import type { TraceEvent } from '../sim/trace.js'

export type Vector = Map<string, number>

/** The vector clock of each `emit` entry of `trace`, in trace order, with its node and event. */
export function causalOrder(
  trace: readonly TraceEvent[],
): Array<{ node: NodeId; event: unknown; clock: Vector }> {
  const clocks = new Map<string, Vector>()
  const sent = new Map<number, Vector>()
  const out: Array<{ node: NodeId; event: unknown; clock: Vector }> = []
  const tick = (node: NodeId): Vector => {
    const key = String(node)
    const clock = new Map(clocks.get(key) ?? [])
    clock.set(key, (clock.get(key) ?? 0) + 1)
    clocks.set(key, clock)
    return clock
  }
  for (const e of trace) {
    if (e.type === 'send') sent.set(e.id, tick(e.from))
    else if (e.type === 'deliver') {
      const clock = tick(e.to)
      for (const [k, v] of sent.get(e.id) ?? []) clock.set(k, Math.max(clock.get(k) ?? 0, v))
    } else if (e.type === 'emit') out.push({ node: e.node, event: e.event, clock: tick(e.node) })
  }
  return out
}

/** a happened before b: a's clock is below b's in every entry and differs. */
export function happenedBefore(a: Vector, b: Vector): boolean {
  let less = false
  for (const [k, v] of a) {
    const w = b.get(k) ?? 0
    if (v > w) return false
    if (v < w) less = true
  }
  for (const [k, w] of b) if (!a.has(k) && w > 0) less = true
  return less
}
