/**
 * A process id, as in `@sd/transport` (re-declared so this package depends on nothing of ours).
 * Ids are totally ordered: numbers before strings, numbers by value, strings by code unit.
 */
export type NodeId = string | number

export function isNodeId(value: unknown): value is NodeId {
  return (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'string'
}

/** The total order on ids that breaks ties between equal Lamport times. */
export function compareNodeIds(a: NodeId, b: NodeId): number {
  if (typeof a === 'number') {
    if (typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0
    return -1
  }
  if (typeof b === 'number') return 1
  return a < b ? -1 : a > b ? 1 : 0
}
