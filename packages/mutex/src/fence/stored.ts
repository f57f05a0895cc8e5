import {
  type JsonValue,
  MemoryStorage,
  readStored,
  type StableStorage,
  type StorageBackend,
  StoredStateError,
  storedShapes,
} from '@sd/transport'

/** What a fence keeps per key: the newest token accepted for a write and for a read (0: none). */
export interface FenceMarks {
  write: number
  read: number
}

const MARKS_SHAPE = storedShapes.record({
  resource: {
    expected: 'a non-empty string',
    is: (v): v is string => typeof v === 'string' && v !== '',
  },
  write: storedShapes.count,
  read: storedShapes.count,
})

/** The storage key of one fence key's marks. */
export const marksKey = (key: string) => `fence:${key}`

/**
 * The marks stored for `key`, or zeros when none are. A value of another shape, or one recorded by
 * a fence of another name, throws `StoredStateError`: never read as zeros, which would let a
 * stale holder through.
 */
export function readMarks(storage: StableStorage, resource: string, key: string): FenceMarks {
  const stored = readStored(storage, marksKey(key), MARKS_SHAPE)
  if (stored === undefined) return { write: 0, read: 0 }
  if (stored.resource !== resource) {
    throw new StoredStateError(
      marksKey(key),
      `the fence state of resource ${JSON.stringify(resource)}`,
      stored,
    )
  }
  return { write: stored.write, read: stored.read }
}

export function writeMarks(
  storage: StableStorage,
  resource: string,
  key: string,
  marks: FenceMarks,
): void {
  storage.set(marksKey(key), { resource, write: marks.write, read: marks.read })
}

/**
 * `ctx.storage` is used as it is (the runtime commits it); a backend is loaded once and each write
 * committed at once, so an accepted token is durable before the resource answers.
 */
export function asStableStorage(
  storage: StableStorage | StorageBackend | undefined,
): StableStorage {
  if (storage === undefined) return committing(new MemoryStorage())
  return isStable(storage) ? storage : committing(storage)
}

// A runtime's ctx.storage may have a `commit` of its own: `get` is what tells the two apart.
const isStable = (storage: StableStorage | StorageBackend): storage is StableStorage =>
  typeof (storage as Partial<StableStorage>).get === 'function'

function committing(backend: StorageBackend): StableStorage {
  const entries = new Map<string, JsonValue>(backend.load())
  return {
    get: (key) => entries.get(key),
    set(key, value) {
      backend.commit(new Map([[key, value]]))
      entries.set(key, value) // only once durable: a failed commit leaves the fence where it was
    },
    delete(key) {
      backend.commit(new Map([[key, undefined]]))
      entries.delete(key)
    },
    keys: () => [...entries.keys()].sort(),
  }
}
