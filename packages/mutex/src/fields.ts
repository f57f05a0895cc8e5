/**
 * Field `key` of a value of unknown shape: of any object (a class instance's too, unlike
 * `isRecord`, which takes plain objects only), undefined for anything else. How the checker and
 * the lock read the events of any algorithm, their own or a user's, one field at a time.
 */
export function fieldOf(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? Reflect.get(value, key) : undefined
}
