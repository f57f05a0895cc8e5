/**
 * A compressed sparse row snapshot of a graph's successors: node v's successors are
 * `targets[offsets[v]]` to `targets[offsets[v + 1] - 1]`. Two flat Int32Arrays instead of a Set per
 * node: scanning them is what makes the whole-graph algorithms fast at a million edges.
 */
export interface Csr {
  /** Nodes are 0 to n - 1. */
  readonly n: number
  /** Length n + 1. */
  readonly offsets: Int32Array
  readonly targets: Int32Array
}

/** The snapshot of `successors` (index-keyed; undefined for none) over nodes 0 to n - 1 with `edges` edges. */
export function buildCsr(
  successors: readonly (ReadonlySet<number> | undefined)[],
  n: number,
  edges: number,
): Csr {
  const offsets = new Int32Array(n + 1)
  const targets = new Int32Array(edges)
  let k = 0
  for (let v = 0; v < n; v++) {
    offsets[v] = k
    const out = successors[v]
    if (out === undefined) continue
    for (const w of out) targets[k++] = w
  }
  offsets[n] = k
  return { n, offsets, targets }
}
