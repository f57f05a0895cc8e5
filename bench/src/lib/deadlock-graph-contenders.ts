/**
 * The two contenders of the graph benchmark, doing the same things with the same edges: ours
 * (@sd/deadlock's WaitForGraph) and graphology 0.26 with graphology-components 1.5 (what a user
 * would pick: a general, well-kept graph library with a strongly connected components function).
 */
import { WaitForGraph } from '@sd/deadlock'
import { DirectedGraph } from 'graphology'
import { stronglyConnectedComponents } from 'graphology-components'
import type { EdgeList } from './deadlock-graph-edges.js'

export const graphologyName = 'graphology 0.26.0 + graphology-components 1.5.4'

export function buildOurs(edges: EdgeList): WaitForGraph<string> {
  const graph = new WaitForGraph<string>()
  const { from, to } = edges
  for (let i = 0; i < from.length; i++) graph.addWait(from[i]!, to[i]!)
  return graph
}

/** The same graph keyed by process number, for the numeric-id variant. */
export function buildOursNumeric(edges: EdgeList): WaitForGraph<number> {
  const graph = new WaitForGraph<number>()
  const { fromIndex, toIndex } = edges
  for (let i = 0; i < fromIndex.length; i++) graph.addWait(fromIndex[i]!, toIndex[i]!)
  return graph
}

/** mergeEdge, graphology's idempotent add (adds missing nodes), like our addWait. */
export function buildGraphology(edges: EdgeList): DirectedGraph {
  const graph = new DirectedGraph()
  const { from, to } = edges
  for (let i = 0; i < from.length; i++) graph.mergeEdge(from[i]!, to[i]!)
  return graph
}

export function sccGraphology(graph: DirectedGraph): string[][] {
  return stronglyConnectedComponents(graph)
}

/**
 * The deadlocked set as a graphology user would compute it: the components with two nodes or more,
 * then everyone who reaches them, breadth-first over in-neighbours.
 */
export function deadlockedGraphology(graph: DirectedGraph): string[] {
  const dead = new Set<string>()
  const queue: string[] = []
  for (const component of stronglyConnectedComponents(graph)) {
    if (component.length < 2) continue
    for (const node of component) {
      dead.add(node)
      queue.push(node)
    }
  }
  for (let head = 0; head < queue.length; head++) {
    graph.forEachInNeighbor(queue[head]!, (waiter) => {
      if (dead.has(waiter)) return
      dead.add(waiter)
      queue.push(waiter)
    })
  }
  return [...dead]
}

/**
 * Whether graphology's components search completes on Node's default stack (the benchmark's main
 * thread): 'ok', or the error it threw.
 */
export function graphologyOnDefaultStack(edges: EdgeList): string {
  const graph = buildGraphology(edges)
  try {
    sccGraphology(graph)
    return 'ok'
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`
  }
}
