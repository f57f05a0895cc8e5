import { StoredStateError } from '../errors.js'
import type { JsonValue } from './json.js'
import type { StableStorage } from './types.js'

/** A check of a stored value's shape, with the words an error names it by. */
export interface StoredShape<T extends JsonValue> {
  /** What the value must be, in words: `"an integer >= 0"`. */
  readonly expected: string
  is(value: JsonValue): value is T
}

/**
 * The value stored under `key`, or undefined when there is none. A value of another shape throws
 * `StoredStateError` (ERR_STORED_STATE): never read as a default.
 */
export function readStored<T extends JsonValue>(
  storage: StableStorage,
  key: string,
  shape: StoredShape<T>,
): T | undefined {
  const value = storage.get(key)
  if (value === undefined) return undefined
  if (!shape.is(value)) throw new StoredStateError(key, shape.expected, value)
  return value
}

/** Shapes most protocols store: counters, terms, ids. */
export const storedShapes = {
  count: {
    expected: 'an integer >= 0',
    is: (v: JsonValue): v is number => Number.isSafeInteger(v) && (v as number) >= 0,
  } satisfies StoredShape<number>,
  nodeId: {
    expected: 'a node id (a finite number or a string)',
    is: (v: JsonValue): v is number | string =>
      typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)),
  } satisfies StoredShape<number | string>,
  /** An object whose listed fields pass their shapes (other fields are allowed). */
  record<F extends Record<string, StoredShape<JsonValue>>>(
    fields: F,
  ): StoredShape<{ [K in keyof F]: F[K] extends StoredShape<infer V> ? V : never }> {
    const names = Object.keys(fields)
    return {
      expected: `an object with ${names.map((n) => `${n} (${fields[n]!.expected})`).join(', ')}`,
      is: (v: JsonValue): v is { [K in keyof F]: F[K] extends StoredShape<infer V> ? V : never } =>
        typeof v === 'object' &&
        v !== null &&
        !Array.isArray(v) &&
        names.every((n) => {
          const field = (v as Record<string, JsonValue | undefined>)[n]
          return field !== undefined && fields[n]!.is(field)
        }),
    }
  },
}
