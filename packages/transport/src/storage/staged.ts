import { InvalidArgumentError } from '../errors.js'
import { frozenJsonCopy, type JsonValue } from './json.js'
import { applyWrites } from './memory.js'
import type { StableStorage, StorageBackend } from './types.js'

/**
 * The `ctx.storage` a runtime hands out: committed entries (loaded once) plus the writes staged by
 * the handler that is running, which `commit` makes durable when the handler returns.
 */
export class StagedStorage implements StableStorage {
  private committed: Map<string, JsonValue>
  private staged: Map<string, JsonValue | undefined> | undefined

  constructor(private readonly backend: StorageBackend) {
    this.committed = new Map(backend.load())
  }

  /** Reads the committed entries again (the backend was put back to an earlier state). */
  reload(): void {
    this.committed = new Map(this.backend.load())
    this.staged = undefined
  }

  /** Whether the running handler has written anything. */
  get dirty(): boolean {
    return this.staged !== undefined
  }

  get(key: string): JsonValue | undefined {
    checkKey(key)
    const staged = this.staged
    if (staged?.has(key)) return staged.get(key)
    return this.committed.get(key)
  }

  set(key: string, value: JsonValue): void {
    checkKey(key)
    const copy = frozenJsonCopy(value, key)
    this.staged ??= new Map()
    this.staged.set(key, copy)
  }

  delete(key: string): void {
    checkKey(key)
    this.staged ??= new Map()
    this.staged.set(key, undefined)
  }

  keys(): string[] {
    const keys = new Set(this.committed.keys())
    for (const [key, value] of this.staged ?? []) {
      if (value === undefined) keys.delete(key)
      else keys.add(key)
    }
    return [...keys].sort()
  }

  /** Sets aside the writes of an enclosing handler while a nested one runs; see `resume`. */
  suspend(): Map<string, JsonValue | undefined> | undefined {
    const staged = this.staged
    this.staged = undefined
    return staged
  }

  resume(staged: Map<string, JsonValue | undefined> | undefined): void {
    this.staged = staged
  }

  /** Hands the staged writes to the backend; they count as committed once it returns. */
  commit(): void {
    const staged = this.staged
    if (staged === undefined) return
    this.staged = undefined
    this.backend.commit(staged)
    applyWrites(this.committed, staged)
  }

  discard(): void {
    this.staged = undefined
  }
}

function checkKey(key: string): void {
  if (typeof key !== 'string')
    throw new InvalidArgumentError(`storage keys are strings, got ${String(key)}`)
}
