import { InvalidArgumentError, isNodeId, type NodeId } from '@sd/transport'

export interface YoyoOptions {
  /**
   * The node's neighbors in the network graph, given by the scenario (YoYo runs on any connected
   * undirected graph, not only on the full mesh). Must be symmetric, and name members only.
   */
  neighbors: (id: NodeId) => readonly NodeId[]
}

export interface YoyoSettings {
  neighbors: YoyoOptions['neighbors']
}

/** Checks the options once, when the factory is built; throws InvalidArgumentError. */
export function resolveOptions(options: unknown): YoyoSettings {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvalidArgumentError('yoyo: options must be an object')
  }
  const unknown = Object.keys(options).filter((k) => k !== 'neighbors')
  if (unknown.length > 0) {
    throw new InvalidArgumentError(`yoyo: unknown option ${JSON.stringify(unknown[0])}`)
  }
  const neighbors = 'neighbors' in options ? options.neighbors : undefined
  if (typeof neighbors !== 'function') {
    throw new InvalidArgumentError(
      'yoyo: options.neighbors must be a function (id) => neighbor ids',
    )
  }
  return { neighbors: (id) => neighbors(id) }
}

const show = (id: unknown) => JSON.stringify(id)

/**
 * The neighbors of `self`, checked against the group: ids of members, not `self`, none twice,
 * and each of them lists `self` back (the graph is undirected). Throws InvalidArgumentError.
 * Connectivity is a global property no node can check: on a disconnected graph each part
 * elects its own minimum.
 */
export function neighborsOf(
  self: NodeId,
  members: readonly NodeId[],
  neighbors: YoyoOptions['neighbors'],
): NodeId[] {
  const listed = neighbors(self)
  if (!Array.isArray(listed)) {
    throw new InvalidArgumentError(`yoyo: neighbors(${show(self)}) must return an array of ids`)
  }
  const known = new Set(members)
  const out = new Set<NodeId>()
  for (const id of listed) {
    if (!isNodeId(id)) {
      throw new InvalidArgumentError(
        `yoyo: neighbors(${show(self)}) lists ${String(id)}, not a node id`,
      )
    }
    if (id === self)
      throw new InvalidArgumentError(`yoyo: node ${show(self)} lists itself as a neighbor`)
    if (!known.has(id)) {
      throw new InvalidArgumentError(
        `yoyo: neighbor ${show(id)} of node ${show(self)} is not a member of the group ${show(members)}`,
      )
    }
    if (out.has(id)) {
      throw new InvalidArgumentError(`yoyo: neighbors(${show(self)}) lists ${show(id)} twice`)
    }
    out.add(id)
  }
  for (const id of out) {
    const back = neighbors(id)
    if (!Array.isArray(back) || !back.includes(self)) {
      throw new InvalidArgumentError(
        `yoyo: the neighbor relation is not symmetric: ${show(id)} is a neighbor of ${show(self)}, but neighbors(${show(id)}) does not list ${show(self)}`,
      )
    }
  }
  return [...out]
}
