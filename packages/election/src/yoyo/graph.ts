import { compareNodeIds, InvalidArgumentError, isNodeId, type NodeId } from '@sd/transport'

/** An undirected graph on node ids, as `yoyo` takes it (`neighbors`) and as tests draw it. */
export interface Graph {
  /** The nodes, ascending. */
  readonly nodes: readonly NodeId[]
  /** Each edge once, smaller id first, in the order they were added. */
  readonly edges: ReadonlyArray<readonly [NodeId, NodeId]>
  /** Neighbors of a node, ascending; empty for an id that is not a node. */
  neighbors(id: NodeId): readonly NodeId[]
}

const key = (a: NodeId, b: NodeId) => JSON.stringify(compareNodeIds(a, b) < 0 ? [a, b] : [b, a])

function checkIds(ids: readonly NodeId[], where: string): NodeId[] {
  if (!Array.isArray(ids)) throw new InvalidArgumentError(`${where}: ids must be an array`)
  const seen = new Set<NodeId>()
  for (const id of ids) {
    if (!isNodeId(id)) throw new InvalidArgumentError(`${where}: ${String(id)} is not a node id`)
    if (seen.has(id)) throw new InvalidArgumentError(`${where}: id ${JSON.stringify(id)} twice`)
    seen.add(id)
  }
  return [...seen].sort(compareNodeIds)
}

/** The graph with these nodes and undirected edges (no loops, no edge twice, no unknown end). */
export function graphOf(
  ids: readonly NodeId[],
  edges: ReadonlyArray<readonly [NodeId, NodeId]>,
): Graph {
  const nodes = checkIds(ids, 'graphOf')
  const adjacency = new Map<NodeId, NodeId[]>(nodes.map((id) => [id, []]))
  const seen = new Set<string>()
  const list: Array<readonly [NodeId, NodeId]> = []
  for (const [a, b] of edges) {
    const where = `graphOf: edge ${JSON.stringify([a, b])}`
    if (!adjacency.has(a) || !adjacency.has(b))
      throw new InvalidArgumentError(`${where} has an end that is not a node`)
    if (a === b) throw new InvalidArgumentError(`${where} is a loop`)
    const k = key(a, b)
    if (seen.has(k)) throw new InvalidArgumentError(`${where} is given twice`)
    seen.add(k)
    adjacency.get(a)!.push(b)
    adjacency.get(b)!.push(a)
    list.push(compareNodeIds(a, b) < 0 ? [a, b] : [b, a])
  }
  for (const row of adjacency.values()) row.sort(compareNodeIds)
  return { nodes, edges: list, neighbors: (id) => adjacency.get(id) ?? [] }
}

/**
 * A connected graph drawn from `random` alone (same function state, same graph): a random
 * spanning tree (each node, in a shuffled order, joins one node placed before it), then
 * `extraEdges` distinct edges among the pairs left (fewer when the graph is complete).
 * It lists every missing pair, O(n^2): meant for tests and the playground, not huge graphs.
 */
export function randomConnectedGraph(
  ids: readonly NodeId[],
  extraEdges: number,
  random: () => number,
): Graph {
  const nodes = checkIds(ids, 'randomConnectedGraph')
  if (!(Number.isSafeInteger(extraEdges) && extraEdges >= 0)) {
    throw new InvalidArgumentError(
      `randomConnectedGraph: extraEdges must be an integer >= 0, got ${extraEdges}`,
    )
  }
  if (typeof random !== 'function') {
    throw new InvalidArgumentError('randomConnectedGraph: random must be a function')
  }
  const pick = (below: number) => Math.min(below - 1, Math.floor(random() * below))
  const order = [...nodes]
  for (let i = order.length - 1; i > 0; i--) {
    const j = pick(i + 1)
    ;[order[i], order[j]] = [order[j]!, order[i]!]
  }
  const edges: Array<[NodeId, NodeId]> = []
  const taken = new Set<string>()
  for (let i = 1; i < order.length; i++) {
    const a = order[i]!
    const b = order[pick(i)]!
    edges.push([a, b])
    taken.add(key(a, b))
  }
  const free: Array<[NodeId, NodeId]> = []
  for (let i = 0; i < nodes.length; i++)
    for (let j = i + 1; j < nodes.length; j++)
      if (!taken.has(key(nodes[i]!, nodes[j]!))) free.push([nodes[i]!, nodes[j]!])
  // A partial shuffle: the first `extra` pairs are a uniform choice among the free ones.
  const extra = Math.min(extraEdges, free.length)
  for (let i = 0; i < extra; i++) {
    const j = i + pick(free.length - i)
    ;[free[i], free[j]] = [free[j]!, free[i]!]
    edges.push(free[i]!)
  }
  return graphOf(nodes, edges)
}
