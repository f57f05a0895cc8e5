import { StorageValueError } from '../errors.js'

/** What stable storage holds: values that survive a round trip through JSON unchanged. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonValue[]
  | { [key: string]: JsonValue }

/** Deeper values are refused, so checking one can never overflow the stack. */
const MAX_DEPTH = 256

/**
 * A deep, frozen copy of `value`, or a `StorageValueError` naming what JSON would lose: `undefined`,
 * NaN and infinities, functions, symbols, bigints, cycles, and objects that are not plain
 * (Date, Map, class instances). Frozen, so a protocol cannot change a stored value behind the store's back.
 */
export function frozenJsonCopy(value: unknown, key: string): JsonValue {
  return copy(value, key, '', new Set(), 0)
}

function copy(
  value: unknown,
  key: string,
  path: string,
  open: Set<object>,
  depth: number,
): JsonValue {
  const refuse = (what: string): never => {
    throw new StorageValueError(key, `${path === '' ? 'the value' : `at ${path}`} is ${what}`)
  }
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value
  if (typeof value === 'number') return Number.isFinite(value) ? value : refuse(String(value))
  if (typeof value !== 'object') return refuse(typeof value)
  if (depth >= MAX_DEPTH) return refuse(`nested deeper than ${MAX_DEPTH} levels`)
  if (open.has(value)) return refuse('a cycle')
  open.add(value)
  let result: JsonValue
  if (Array.isArray(value)) {
    result = Object.freeze(
      Array.from(value, (item, i) => copy(item, key, `${path}[${i}]`, open, depth + 1)),
    ) as JsonValue[]
  } else {
    const proto = Object.getPrototypeOf(value)
    if (proto !== Object.prototype && proto !== null)
      refuse(`a ${proto?.constructor?.name ?? 'non-plain'} object`)
    // fromEntries defines own properties, so a key such as "__proto__" stays an ordinary key.
    result = Object.freeze(
      Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, copy(v, key, `${path}.${k}`, open, depth + 1)]),
      ),
    )
  }
  open.delete(value)
  return result
}
