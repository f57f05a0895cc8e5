import { compareNodeIds, type NodeId } from '@sd/transport'

export interface Answer {
  to: NodeId
  yes: boolean
  prune: boolean
}

/** The smallest of `values` (undefined when empty). */
export function smallest(values: Iterable<NodeId>): NodeId | undefined {
  let min: NodeId | undefined
  for (const v of values) if (min === undefined || compareNodeIds(v, min) < 0) min = v
  return min
}

/**
 * The -YO answers of a sink or internal node, to each in-neighbor of the iteration.
 * `values`: what each in-neighbor sent down; `anyNo`: a NO came up from below, on an edge that
 * stays; `outLeft`: edges to nodes below that stay (flipped or not) once the votes pruned theirs.
 *
 * - YES to the senders of the smallest value, NO to the others; NO to all after a NO from below.
 * - Pruning, rule 2: of several in-edges that brought the same value, one is kept (the one from
 *   the smallest neighbor id) and the others are pruned. They all lead back to the one source
 *   of that value, so the graph stays connected.
 * - Pruning, rule 1: a sink with a single in-neighbor is pruned (`leave`): it asks to remove that
 *   edge too. "Sink" is judged after the other pruning of this -YO: a node whose out-edges were
 *   all pruned from below, or whose in-edges all brought one value, is such a sink now. The node
 *   then hangs from one edge only, so removing it keeps the graph connected.
 * An answer depends on the value and `anyNo` only, so a pruned duplicate gets the same answer as
 * the edge kept for its value: a NO on a pruned edge is repeated on an edge that stays. A node
 * that leaves has no edge left below, so no NO that counts: it answers YES.
 */
export function answers(
  values: ReadonlyMap<NodeId, NodeId>,
  anyNo: boolean,
  outLeft: number,
): { answers: Answer[]; leave: boolean } {
  const min = smallest(values.values())
  const kept = new Map<NodeId, NodeId>()
  for (const [from, value] of values) {
    const held = kept.get(value)
    if (held === undefined || compareNodeIds(from, held) < 0) kept.set(value, from)
  }
  const leave = outLeft === 0 && kept.size === 1
  const out: Answer[] = []
  for (const [to, value] of values) {
    out.push({ to, yes: !anyNo && value === min, prune: leave || kept.get(value) !== to })
  }
  return { answers: out, leave }
}
