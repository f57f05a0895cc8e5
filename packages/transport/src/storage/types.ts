import type { JsonValue } from './json.js'

/**
 * `ctx.storage`: the little state a protocol must not lose across a crash (a term, the last fencing
 * token, a vote). Synchronous. Writes are staged while a handler runs and become durable when it
 * returns; reads see the handler's own staged writes. Values are JSON; stored values are frozen.
 */
export interface StableStorage {
  get(key: string): JsonValue | undefined
  /** Throws `StorageValueError` for a value JSON cannot hold. */
  set(key: string, value: JsonValue): void
  delete(key: string): void
  /** Every key present, ascending. */
  keys(): string[]
}

/** One handler's writes: a value to store, or `undefined` to delete the key. */
export type StorageWrites = ReadonlyMap<string, JsonValue | undefined>

/**
 * Where a node's stable storage lives. The runtime loads it once when a protocol starts, and
 * commits each handler's writes when the handler returns. One running protocol per store.
 */
export interface StorageBackend {
  /** Every committed entry. */
  load(): ReadonlyMap<string, JsonValue>
  /** Makes one handler's writes durable, all or none, before returning; throws if it cannot. */
  commit(writes: StorageWrites): void
}
