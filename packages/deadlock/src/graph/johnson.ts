import type { Csr } from './csr.js'
import { tarjan } from './tarjan.js'

/**
 * Johnson's algorithm (1975): every elementary cycle (no repeated node) once, as node lists that
 * start at the cycle's smallest node, stopping after `limit` cycles. For each start s in increasing
 * order it searches only the strongly connected component of the subgraph of nodes >= s that holds
 * the smallest node in a cyclic component, and blocks nodes that cannot lead back to s until a
 * cycle through them is found, so the time between two cycles found is O(V + E): O((V + E)(C + 1))
 * for C cycles. Iterative (explicit stacks) like the rest of the module.
 */
export function johnson(csr: Csr, limit: number): number[][] {
  const { n, offsets, targets } = csr
  const cycles: number[][] = []
  const blocked = new Uint8Array(n)
  // blockers[w]: nodes to unblock when w is; Johnson's B lists.
  const blockers: (Set<number> | undefined)[] = new Array(n)
  const inScc = new Uint8Array(n)
  const sizes = new Int32Array(n)
  const path = new Int32Array(n)
  const cursor = new Int32Array(n)
  const found = new Uint8Array(n) // found[i]: the search below path[i] closed a cycle
  const unblockWork: number[] = []

  let s = 0
  while (s < n && cycles.length < limit) {
    const { component, count } = tarjan(csr, s)
    sizes.fill(0, 0, count)
    for (let v = s; v < n; v++) sizes[component[v]!]!++
    // The smallest node >= s in a component with a cycle (two nodes or more: no self-loops).
    let start = s
    while (start < n && sizes[component[start]!]! < 2) start++
    if (start === n) break
    const scc = component[start]!
    for (let v = start; v < n; v++) {
      const member = component[v] === scc
      inScc[v] = member ? 1 : 0
      if (member) {
        blocked[v] = 0
        blockers[v]?.clear()
      }
    }
    circuit(start)
    for (let v = start; v < n; v++) inScc[v] = 0
    s = start + 1
  }
  return cycles

  function circuit(root: number): void {
    let depth = 0
    const push = (v: number) => {
      path[depth] = v
      found[depth] = 0
      cursor[depth] = offsets[v]!
      blocked[v] = 1
      depth++
    }
    push(root)
    while (depth > 0) {
      const top = depth - 1
      const v = path[top]!
      const e = cursor[top]!
      if (e < offsets[v + 1]!) {
        cursor[top] = e + 1
        const w = targets[e]!
        if (inScc[w] === 0) continue
        if (w === root) {
          cycles.push(Array.from(path.subarray(0, depth)))
          found[top] = 1
          if (cycles.length >= limit) return
        } else if (blocked[w] === 0) {
          push(w)
        }
        continue
      }
      depth--
      if (found[top] === 1) {
        unblock(v)
        if (depth > 0) found[depth - 1] = 1
      } else {
        // v cannot reach root now; it stays blocked until one of its successors is unblocked.
        for (let f = offsets[v]!; f < offsets[v + 1]!; f++) {
          const w = targets[f]!
          if (inScc[w] === 0) continue
          let set = blockers[w]
          if (set === undefined) blockers[w] = set = new Set()
          set.add(v)
        }
      }
    }
  }

  function unblock(u: number): void {
    blocked[u] = 0
    unblockWork.push(u)
    while (unblockWork.length > 0) {
      const x = unblockWork.pop()!
      const set = blockers[x]
      if (set === undefined) continue
      for (const w of set) {
        if (blocked[w] === 1) {
          blocked[w] = 0
          unblockWork.push(w)
        }
      }
      set.clear()
    }
  }
}
