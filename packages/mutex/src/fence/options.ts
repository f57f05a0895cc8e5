import type { StableStorage, StorageBackend } from '@sd/transport'
import { InvalidArgumentError } from '../errors.js'

export interface FenceOptions {
  /**
   * The resource this fence guards, recorded with its stored state: state recorded by a fence
   * of another name (another resource's file) is refused with `StoredStateError`. Default
   * `'fence'`.
   */
  name?: string
  /**
   * Where the newest tokens live, so a restarted resource still refuses what it refused before:
   * `ctx.storage` inside a protocol (committed by the runtime when the handler returns), or a
   * `StorageBackend` (`openFileStorage(path)`, `new MemoryStorage()`) in a plain process, which
   * the fence commits at each accepted token that moves it, before `check` returns. Default: a
   * fresh `MemoryStorage` (nothing survives the process). A backend is loaded once: one fence
   * per backend, as one process per file.
   */
  storage?: StableStorage | StorageBackend
  /**
   * Reads are refused when older than any accepted token, read or write (one watermark), not only
   * older than the newest write. A resource whose readers must never see the fence go back (the
   * cluster's counter) sets it. Default false.
   */
  strictReads?: boolean
}

export interface FenceSettings {
  name: string
  storage: StableStorage | StorageBackend | undefined
  strictReads: boolean
}

export const DEFAULT_FENCE_NAME = 'fence'

export function resolveOptions(options: FenceOptions = {}): FenceSettings {
  const name = options.name ?? DEFAULT_FENCE_NAME
  if (typeof name !== 'string' || name === '') {
    throw new InvalidArgumentError(`name must be a non-empty string, got ${String(name)}`)
  }
  const strictReads = options.strictReads ?? false
  if (typeof strictReads !== 'boolean') {
    throw new InvalidArgumentError(`strictReads must be a boolean, got ${String(strictReads)}`)
  }
  return { name, storage: options.storage, strictReads }
}
