import { frozenJsonCopy, type JsonValue } from './json.js'
import type { StorageBackend, StorageWrites } from './types.js'

/**
 * A store in memory: the default of `runProtocol`. It outlives a protocol instance (pass the same
 * store to the next `runProtocol`), not the process: nothing survives a process restart.
 */
export class MemoryStorage implements StorageBackend {
  private readonly entries = new Map<string, JsonValue>()

  constructor(initial: Readonly<Record<string, JsonValue>> = {}) {
    for (const [key, value] of Object.entries(initial))
      this.entries.set(key, frozenJsonCopy(value, key))
  }

  load(): ReadonlyMap<string, JsonValue> {
    return new Map(this.entries)
  }

  commit(writes: StorageWrites): void {
    applyWrites(this.entries, writes)
  }

  /** The committed entries, as a plain object with keys in ascending order. */
  snapshot(): Record<string, JsonValue> {
    return Object.fromEntries([...this.entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  }
}

/** Applies staged writes to committed entries (`undefined` deletes). */
export function applyWrites(entries: Map<string, JsonValue>, writes: StorageWrites): void {
  for (const [key, value] of writes) {
    if (value === undefined) entries.delete(key)
    else entries.set(key, value)
  }
}
