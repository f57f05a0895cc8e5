/** A node's identity. Ids are totally ordered: numbers before strings, numbers by value, strings by code unit. */
import { sortSmall } from './sort-small.js'

export type NodeId = string | number

export function isNodeId(value: unknown): value is NodeId {
  return (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'string'
}

/** Total order on ids, used wherever an algorithm compares ids (bully, Ricart-Agrawala ties...). */
export function compareNodeIds(a: NodeId, b: NodeId): number {
  if (typeof a === 'number') {
    if (typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0
    return -1
  }
  if (typeof b === 'number') return 1
  return a < b ? -1 : a > b ? 1 : 0
}

export function sortNodeIds(ids: Iterable<NodeId>): NodeId[] {
  // Snapshots sort their id sets state after state: a short array sorts without allocating.
  return sortSmall([...ids], compareNodeIds)
}
