import { compareNodeIds, type JsonValue, type NodeId, sortNodeIds } from '@sd/transport'

export { snapshotFields } from '@sd/transport'

/**
 * What a protocol's `snapshot()` returns: plain JSON data, canonical and complete (the contract of
 * `Protocol.snapshot` in `@sd/transport`). Collections whose order the node never shows (it only
 * asks membership or size) come out sorted; a collection it acts on in order (sends stamped one
 * after the other, emits) keeps that order, since two such states do lead to different steps.
 */
export type Snapshot = JsonValue

/** A set of node ids: ascending. */
export function idSet(ids: Iterable<NodeId>): NodeId[] {
  // Taken state after state by the explorer: an empty set (most often) allocates no iterator.
  if (ids instanceof Set && ids.size === 0) return []
  return sortNodeIds(ids)
}

/** A map keyed by node id: `[id, value]` pairs ascending by id. */
export function idMap<V>(map: ReadonlyMap<NodeId, V>, value: (v: V) => Snapshot): Snapshot[] {
  return [...map]
    .sort(([a], [b]) => compareNodeIds(a, b))
    .map(([id, v]): Snapshot => [id, value(v)])
}

/** A map keyed by name (resources): `[name, value]` pairs ascending by name. */
export function nameMap<V>(map: ReadonlyMap<string, V>, value: (v: V) => Snapshot): Snapshot[] {
  // Built in one pass and sorted only when out of order (most hold one resource): the explorer
  // takes a snapshot state after state.
  const out: Array<[string, Snapshot]> = []
  let sorted = true
  for (const [name, v] of map) {
    if (out.length > 0 && out[out.length - 1]![0] > name) sorted = false
    out.push([name, value(v)])
  }
  if (!sorted) out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return out
}

/** A map keyed by name in its insertion order (the order the node goes through it). */
export function nameList<V>(map: ReadonlyMap<string, V>, value: (v: V) => Snapshot): Snapshot[] {
  return [...map].map(([name, v]): Snapshot => [name, value(v)])
}

/** `undefined` has no JSON form: an absent value is `null`. */
export function orNull<T>(value: T | undefined, shape: (v: T) => Snapshot): Snapshot {
  return value === undefined ? null : shape(value)
}

/** A message kept to be handled later: plain JSON already (it is built to go on the wire). */
export function plainCopy(message: object): Snapshot {
  return JSON.parse(JSON.stringify(message))
}
