/**
 * Liveness on the state graph: a goal fails when some fair run never reaches it, a lasso. Among
 * the states reachable from the start through states where the goal fails, a lasso ends in a
 * terminal state with nothing pending (a deadlock), or in a strongly connected component with a
 * fair cycle. Weak fairness: a task (a message at its link's head, a timer, a request) pending in
 * every state of a cycle must be taken (delivered or dropped, fired) within it. In a component,
 * a fair cycle exists exactly when every task pending in all its states is taken by one of its
 * edges: a cycle through those edges, and through states where any other task is not pending,
 * is fair; and if some task pending everywhere is taken by no edge, no cycle inside is fair.
 */
import type { StateGraph } from './state-graph.js'

/** A path as steps `[label id, state reached]`. */
type Path = Array<[number, number]>

export interface GraphLasso {
  kind: 'deadlock' | 'cycle'
  /** From the start to the loop's first state. */
  prefix: Path
  /** Back to that state (empty for a deadlock). */
  loop: Path
  /** The state where the loop starts (the deadlock itself). */
  entry: number
}

export interface GraphVerdict {
  lasso?: GraphLasso
  /** States in the region stopped by a bound, never expanded. */
  unreached: number
}

/** Looks for a lasso of goal `goal` from state `root`. */
export function findLasso(graph: StateGraph, root: number, goal: number): GraphVerdict {
  const fails = (s: number) => !graph.holds[s]![goal]
  if (!fails(root)) return { unreached: 0 }
  // Breadth first through the failing states: shortest prefixes, and the region to search.
  const parent = new Map<number, [number, number] | undefined>([[root, undefined]])
  const order: number[] = [root]
  for (let i = 0; i < order.length; i++) {
    for (const [label, to] of graph.edges[order[i]!]!) {
      if (parent.has(to) || !fails(to)) continue
      parent.set(to, [label, order[i]!])
      order.push(to)
    }
  }
  const prefixTo = (state: number): Path => {
    const path: Path = []
    for (let s = state, p = parent.get(s); p !== undefined; s = p[1], p = parent.get(s))
      path.push([p[0], s])
    return path.reverse()
  }
  let unreached = 0
  for (const s of order) if (!graph.expanded[s] && graph.ends[s] === 'bound') unreached++
  const dead = order.find((s) => !graph.expanded[s] && graph.ends[s] === 'deadlock')
  if (dead !== undefined)
    return { unreached, lasso: { kind: 'deadlock', prefix: prefixTo(dead), loop: [], entry: dead } }
  const region = new Set(order)
  for (const component of components(graph, order, region)) {
    const loop = fairCycle(graph, component)
    if (loop === undefined) continue
    return { unreached, lasso: { kind: 'cycle', prefix: prefixTo(loop.entry), ...loop } }
  }
  return { unreached }
}

/**
 * Tarjan's strongly connected components of the region, iteratively (a deep graph would
 * overflow the stack), each listed in breadth-first order (its first state nearest the start).
 * Trivial components (one state, no edge to itself) are left out.
 */
function components(graph: StateGraph, order: number[], region: Set<number>): number[][] {
  const rank = new Map(order.map((s, i) => [s, i]))
  const index = new Map<number, number>()
  const low = new Map<number, number>()
  const onStack = new Set<number>()
  const stack: number[] = []
  const out: number[][] = []
  let next = 0
  for (const start of order) {
    if (index.has(start)) continue
    const work: Array<[number, number]> = [[start, 0]]
    index.set(start, next)
    low.set(start, next++)
    stack.push(start)
    onStack.add(start)
    while (work.length > 0) {
      const frame = work[work.length - 1]!
      const [v, i] = frame
      const edges = graph.edges[v]!
      if (i < edges.length) {
        frame[1]++
        const w = edges[i]![1]
        if (!region.has(w)) continue
        if (!index.has(w)) {
          index.set(w, next)
          low.set(w, next++)
          stack.push(w)
          onStack.add(w)
          work.push([w, 0])
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
        continue
      }
      work.pop()
      if (work.length > 0) {
        const u = work[work.length - 1]![0]
        low.set(u, Math.min(low.get(u)!, low.get(v)!))
      }
      if (low.get(v) !== index.get(v)) continue
      const component: number[] = []
      for (let w = stack.pop()!; ; w = stack.pop()!) {
        onStack.delete(w)
        component.push(w)
        if (w === v) break
      }
      const selfLoop = graph.edges[v]!.some(([, to]) => to === v)
      if (component.length > 1 || selfLoop)
        out.push(component.sort((a, b) => rank.get(a)! - rank.get(b)!))
    }
  }
  return out.sort((a, b) => rank.get(a[0]!)! - rank.get(b[0]!)!)
}

/** A fair cycle through the component's first state, or undefined when none is fair. */
function fairCycle(
  graph: StateGraph,
  component: number[],
): { entry: number; loop: Path } | undefined {
  const inside = new Set(component)
  const entry = component[0]!
  const everywhere = (states: Iterable<number>) => {
    let common: Set<number> | undefined
    for (const s of states) {
      const here = new Set(graph.pending[s])
      common = common === undefined ? here : new Set([...common].filter((t) => here.has(t)))
    }
    return common ?? new Set<number>()
  }
  // One edge inside taking each task pending in every state; none: no fair cycle here.
  const required: Array<[number, number, number]> = []
  for (const task of everywhere(component)) {
    const edge = takes(graph, component, inside, task)
    if (edge === undefined) return undefined
    required.push(edge)
  }
  const loop: Path = []
  let at = entry
  for (const [from, label, to] of required) {
    loop.push(...pathWithin(graph, inside, at, from), [label, to])
    at = to
  }
  if (loop.length === 0) {
    const [label, to] = graph.edges[entry]!.find(([, t]) => inside.has(t))!
    loop.push([label, to])
    at = to
  }
  loop.push(...pathWithin(graph, inside, at, entry))
  // Detours through states where a task still owed is not pending, until none is owed.
  for (;;) {
    const taken = new Set(loop.map(([label]) => graph.labelTask[label]))
    const owed = [...everywhere([entry, ...loop.map(([, s]) => s)])].find((t) => !taken.has(t))
    if (owed === undefined) return { entry, loop }
    const free = component.find((s) => !graph.pending[s]!.includes(owed))!
    loop.push(...pathWithin(graph, inside, entry, free), ...pathWithin(graph, inside, free, entry))
  }
}

function takes(
  graph: StateGraph,
  component: number[],
  inside: Set<number>,
  task: number,
): [number, number, number] | undefined {
  for (const from of component)
    for (const [label, to] of graph.edges[from]!)
      if (inside.has(to) && graph.labelTask[label] === task) return [from, label, to]
  return undefined
}

/** A shortest path from `from` to `to` inside the component (empty when they are one state). */
function pathWithin(graph: StateGraph, inside: Set<number>, from: number, to: number): Path {
  if (from === to) return []
  const parent = new Map<number, [number, number]>()
  const queue = [from]
  for (let i = 0; i < queue.length && !parent.has(to); i++) {
    for (const [label, next] of graph.edges[queue[i]!]!) {
      if (!inside.has(next) || next === from || parent.has(next)) continue
      parent.set(next, [label, queue[i]!])
      queue.push(next)
    }
  }
  const path: Path = []
  for (let s = to; s !== from; s = parent.get(s)![1]) path.push([parent.get(s)![0], s])
  return path.reverse()
}
