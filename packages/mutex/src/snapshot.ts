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
export const idSet = (ids: Iterable<NodeId>): NodeId[] => sortNodeIds(ids)

/** A map keyed by node id: `[id, value]` pairs ascending by id. */
export function idMap<V>(map: ReadonlyMap<NodeId, V>, value: (v: V) => Snapshot): Snapshot[] {
  return [...map]
    .sort(([a], [b]) => compareNodeIds(a, b))
    .map(([id, v]): Snapshot => [id, value(v)])
}

/** A map keyed by name (resources): `[name, value]` pairs ascending by name. */
export function nameMap<V>(map: ReadonlyMap<string, V>, value: (v: V) => Snapshot): Snapshot[] {
  return [...map]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, v]): Snapshot => [name, value(v)])
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
