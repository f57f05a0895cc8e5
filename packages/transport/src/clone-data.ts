/**
 * A deep copy of plain data, as `JSON.parse(JSON.stringify(value))` gives it back, without the
 * text: a checkpoint keeps a node's snapshot this way and hands `restore` a copy of its own, state
 * after state. Only for data `hashValue` took (null, booleans, finite numbers, strings, arrays,
 * objects of `Object.prototype` or none), where the two agree: -0 comes back 0, every object
 * comes back with `Object.prototype`, an own `__proto__` key stays a key.
 */
export function cloneData<T>(value: T): T {
  return copy(value) as T
}

function copy(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value === 0 ? 0 : value
  if (Array.isArray(value)) {
    // Pushed, not preset to a length: a packed array, as JSON.parse makes.
    const out: unknown[] = []
    for (let i = 0; i < value.length; i++) out.push(copy(value[i]))
    return out
  }
  const out: Record<string, unknown> = {}
  // Object.keys, not for-in: steadier across the many shapes a search meets.
  const keys = Object.keys(value)
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!
    const v = copy((value as Record<string, unknown>)[key])
    if (key === '__proto__')
      Object.defineProperty(out, key, {
        value: v,
        writable: true,
        enumerable: true,
        configurable: true,
      })
    else out[key] = v
  }
  return out
}
