import type { Scratch } from './scratch.js'

/** Index-keyed successor sets, as the graph keeps them. */
export type Successors = readonly (ReadonlySet<number> | undefined)[]

/**
 * A shortest path `[source, ..., last]` whose last node waits for `target` (breadth-first, so the
 * path is as short as any), or undefined when `source` cannot reach `target`. With
 * source === target this is a shortest cycle through it. Visits only what `source` reaches, and
 * stops as soon as it sees `target`.
 */
export function pathTo(
  successors: Successors,
  source: number,
  target: number,
  scratch: Scratch,
  capacity: number,
): number[] | undefined {
  const epoch = scratch.begin(capacity)
  const { stamp, parent, queue } = scratch
  stamp[source] = epoch
  parent[source] = -1
  queue[0] = source
  let head = 0
  let tail = 1
  while (head < tail) {
    const v = queue[head++]!
    const out = successors[v]
    if (out === undefined) continue
    if (out.has(target)) return unwind(parent, v)
    for (const w of out) {
      if (stamp[w] === epoch) continue
      stamp[w] = epoch
      parent[w] = v
      queue[tail++] = w
    }
  }
  return undefined
}

function unwind(parent: Int32Array, last: number): number[] {
  const path: number[] = []
  for (let v = last; v !== -1; v = parent[v]!) path.push(v)
  return path.reverse()
}

/**
 * A cycle among the nodes reachable from `roots` (each root in turn), or undefined when there is
 * none. Depth-first with an explicit stack: an edge back to a node on the current path closes a
 * cycle. A node explored from an earlier root is not explored again, so the cost is
 * O(reached nodes + their edges) over all roots together.
 */
export function cycleFrom(
  successors: Successors,
  roots: Iterable<number>,
  scratch: Scratch,
  capacity: number,
): number[] | undefined {
  const epoch = scratch.begin(capacity)
  const { stamp, pathPos } = scratch
  const path: number[] = []
  const edges: Iterator<number>[] = []
  let found: number[] | undefined
  for (const root of roots) {
    if (stamp[root] === epoch) continue
    stamp[root] = epoch
    pathPos[root] = 0
    path.push(root)
    edges.push(iterate(successors[root]))
    while (path.length > 0) {
      const step = edges[edges.length - 1]!.next()
      if (step.done) {
        pathPos[path.pop()!] = -1
        edges.pop()
        continue
      }
      const w = step.value
      if (pathPos[w]! >= 0) {
        found = path.slice(pathPos[w])
        break
      }
      if (stamp[w] === epoch) continue
      stamp[w] = epoch
      pathPos[w] = path.length
      path.push(w)
      edges.push(iterate(successors[w]))
    }
    if (found !== undefined) break
  }
  // Leave pathPos all -1 for the next search.
  for (const v of path) pathPos[v] = -1
  return found
}

const NONE: ReadonlySet<number> = new Set()

function iterate(out: ReadonlySet<number> | undefined): Iterator<number> {
  return (out ?? NONE).values()
}
