// Brute-force answers on small graphs, to judge the real algorithms against: plain BFS from every
// node, and cycle enumeration by backtracking over simple paths.

export type Edge = readonly [number, number]

/** A random graph on nodes 0 to n - 1, each ordered pair (no self-wait) an edge with probability p. */
export function randomEdges(next: () => number, n: number, p: number): Edge[] {
  const edges: Edge[] = []
  for (let a = 0; a < n; a++)
    for (let b = 0; b < n; b++) if (a !== b && next() < p) edges.push([a, b])
  // Shuffle, so the graph's insertion order differs from the nodes' numeric order.
  for (let i = edges.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1))
    ;[edges[i], edges[j]] = [edges[j]!, edges[i]!]
  }
  return edges
}

export function adjacency(n: number, edges: readonly Edge[]): Set<number>[] {
  const adj = Array.from({ length: n }, () => new Set<number>())
  for (const [a, b] of edges) adj[a]!.add(b)
  return adj
}

/** dist[x][y]: the fewest edges on a path from x to y (at least one), Infinity when there is none. */
export function distances(adj: readonly Set<number>[]): number[][] {
  return adj.map((_, x) => {
    const dist = new Array<number>(adj.length).fill(Infinity)
    let frontier = [...adj[x]!]
    for (const y of frontier) dist[y] = 1
    for (let d = 2; frontier.length > 0; d++) {
      const next: number[] = []
      for (const v of frontier)
        for (const w of adj[v]!) {
          if (dist[w] === Infinity) {
            dist[w] = d
            next.push(w)
          }
        }
      frontier = next
    }
    return dist
  })
}

export interface Truth {
  onCycle: boolean[]
  deadlocked: boolean[]
  /** Component label per node: the smallest node mutually reachable with it (itself included). */
  sccLabel: number[]
}

export function truthOf(adj: readonly Set<number>[]): Truth {
  const n = adj.length
  const dist = distances(adj)
  const reach = (x: number, y: number) => dist[x]![y]! < Infinity
  const onCycle = adj.map((_, x) => reach(x, x))
  const deadlocked = adj.map((_, x) => onCycle[x]! || onCycle.some((c, y) => c && reach(x, y)))
  const sccLabel = adj.map((_, x) => {
    for (let y = 0; y < n; y++) if (y === x || (reach(x, y) && reach(y, x))) return y
    return x
  })
  return { onCycle, deadlocked, sccLabel }
}

/** Every elementary cycle, each rotated to start at its smallest node, as strings "a,b,c". */
export function allCycles(adj: readonly Set<number>[]): Set<string> {
  const cycles = new Set<string>()
  const path: number[] = []
  const onPath = new Set<number>()
  const extend = (start: number, v: number) => {
    for (const w of adj[v]!) {
      if (w === start) cycles.add(path.join(','))
      else if (w > start && !onPath.has(w)) {
        path.push(w)
        onPath.add(w)
        extend(start, w)
        path.pop()
        onPath.delete(w)
      }
    }
  }
  for (let s = 0; s < adj.length; s++) {
    path.push(s)
    onPath.add(s)
    extend(s, s)
    path.pop()
    onPath.delete(s)
  }
  return cycles
}

/** A cycle's canonical string: rotated to start at its smallest element by `key`. */
export function canonical<T>(cycle: readonly T[], key: (x: T) => number): string {
  let best = 0
  for (let i = 1; i < cycle.length; i++) if (key(cycle[i]!) < key(cycle[best]!)) best = i
  return [...cycle.slice(best), ...cycle.slice(0, best)].map(key).join(',')
}

/** Throws unless `cycle` is elementary and every node waits for the next, the last for the first. */
export function checkCycle(adj: readonly Set<number>[], cycle: readonly number[]): void {
  if (cycle.length < 2) throw new Error(`cycle ${cycle} is too short`)
  if (new Set(cycle).size !== cycle.length) throw new Error(`cycle ${cycle} repeats a node`)
  for (let i = 0; i < cycle.length; i++) {
    const a = cycle[i]!
    const b = cycle[(i + 1) % cycle.length]!
    if (!adj[a]!.has(b)) throw new Error(`cycle ${cycle}: ${a} does not wait for ${b}`)
  }
}

/** Node i's id in the graph under test: even nodes are numbers, odd ones strings, to mix both kinds. */
export const idOf = (i: number): string | number => (i % 2 === 0 ? i : `p${i}`)
export const nodeOf = (id: string | number): number =>
  typeof id === 'number' ? id : Number(id.slice(1))
