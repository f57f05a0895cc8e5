import type { Csr } from './csr.js'

/** Strongly connected components by node: `component[v]` in 0 to count - 1. */
export interface SccLabels {
  readonly component: Int32Array
  readonly count: number
}

/**
 * Tarjan's algorithm with an explicit call stack, so a path of a million nodes needs no deep
 * recursion. O(V + E). Only nodes `minNode` to n - 1 and the edges between them take part (Johnson's
 * algorithm asks for such subgraphs); the others get component -1.
 *
 * Components are numbered in the order they complete, which is a reverse topological order of the
 * condensation: for every edge v -> w between two components, component[w] < component[v].
 */
export function tarjan(csr: Csr, minNode = 0): SccLabels {
  const { n, offsets, targets } = csr
  // order[v]: discovery number + 1, 0 for unvisited; low[v]: the smallest discovery number v reaches.
  const order = new Int32Array(n)
  const low = new Int32Array(n)
  const component = new Int32Array(n).fill(-1)
  // cursor[v]: v's next edge to scan, so a node resumes where it left off when its child returns.
  const cursor = new Int32Array(n)
  const calls = new Int32Array(n)
  const open = new Int32Array(n) // Tarjan's stack: visited nodes without a component yet
  let depth = 0
  let top = 0
  let counter = 0
  let count = 0

  for (let root = minNode; root < n; root++) {
    if (order[root] !== 0) continue
    order[root] = low[root] = ++counter
    cursor[root] = offsets[root]!
    open[top++] = root
    calls[depth++] = root
    while (depth > 0) {
      const v = calls[depth - 1]!
      const e = cursor[v]!
      if (e < offsets[v + 1]!) {
        cursor[v] = e + 1
        const w = targets[e]!
        if (w < minNode) continue
        if (order[w] === 0) {
          order[w] = low[w] = ++counter
          cursor[w] = offsets[w]!
          open[top++] = w
          calls[depth++] = w
        } else if (component[w] === -1 && order[w]! < low[v]!) {
          // w is still open, hence on the path's stack: v reaches an ancestor.
          low[v] = order[w]!
        }
        continue
      }
      depth--
      if (low[v] === order[v]) {
        let w: number
        do {
          w = open[--top]!
          component[w] = count
        } while (w !== v)
        count++
      }
      if (depth > 0) {
        const parent = calls[depth - 1]!
        if (low[v]! < low[parent]!) low[parent] = low[v]!
      }
    }
  }
  return { component, count }
}

/** Nodes grouped by component: component c's nodes are `members[start[c]]` to `members[start[c + 1] - 1]`. */
export interface ComponentGroups {
  readonly start: Int32Array
  readonly members: Int32Array
}

/** A counting sort of the nodes by component, O(V). */
export function groupComponents(labels: SccLabels): ComponentGroups {
  const { component, count } = labels
  const start = new Int32Array(count + 1)
  for (let v = 0; v < component.length; v++) {
    const c = component[v]!
    if (c >= 0) start[c + 1]!++
  }
  for (let c = 0; c < count; c++) start[c + 1]! += start[c]!
  const next = start.slice(0, count)
  const members = new Int32Array(start[count]!)
  for (let v = 0; v < component.length; v++) {
    const c = component[v]!
    if (c >= 0) members[next[c]!++] = v
  }
  return { start, members }
}
