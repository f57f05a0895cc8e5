import { InvalidArgumentError } from './errors.js'

/**
 * For a protocol's `restore()`: the object its `snapshot()` gave, with every one of `fields`, else
 * refused with `InvalidArgumentError` naming `who` (a state of another protocol or of another
 * version is never read as a default).
 */
export function snapshotFields<K extends string>(
  snapshot: unknown,
  who: string,
  fields: readonly K[],
): Record<K, unknown> {
  if (snapshot === null || typeof snapshot !== 'object' || Array.isArray(snapshot))
    throw new InvalidArgumentError(`${who}: restore() takes the object snapshot() gave`)
  const missing = fields.filter((f) => !Object.hasOwn(snapshot, f))
  if (missing.length > 0)
    throw new InvalidArgumentError(
      `${who}: restore() got a snapshot without ${missing.join(', ')}: not one its snapshot() gave`,
    )
  return snapshot as Record<K, unknown>
}

/** A list a `snapshot()` gave, for `restore()`: else refused, as `snapshotFields`. */
export function snapshotList<T>(snapshot: unknown, who: string, what: string): T[] {
  if (!Array.isArray(snapshot))
    throw new InvalidArgumentError(`${who}: restore() expected ${what} as a list`)
  return snapshot as T[]
}
