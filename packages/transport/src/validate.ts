/**
 * Checks for input from the wire. A peer's message is whatever the peer sent: a bug, another
 * version or an attacker may send any JSON value. Protocols check every message against its
 * declared shape before acting on it, and drop (never throw on) what does not fit. Pure and
 * dependency-free, so protocol code can use it.
 */

/** A type guard: `true` when `value` has type `T`. */
export type Guard<T> = (value: unknown) => value is T

/** Own keys that, copied or merged into another object, would reach or replace a prototype. */
const POLLUTING_KEYS = ['__proto__', 'constructor', 'prototype'] as const

/**
 * A plain object (literal or JSON-decoded): not null, not an array, not a class instance, and
 * without own `__proto__`, `constructor` or `prototype` keys (as `JSON.parse` makes them).
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) return false
  return !POLLUTING_KEYS.some((key) => Object.hasOwn(value, key))
}

/** An integer in [0, 2^53 - 1]: counters, sequence numbers, terms. */
export const isNonNegInt: Guard<number> = (value): value is number =>
  Number.isSafeInteger(value) && (value as number) >= 0

/** A finite number (no NaN, no ±Infinity). */
export const isFiniteNumber: Guard<number> = (value): value is number =>
  typeof value === 'number' && Number.isFinite(value)

/** A finite number in [min, max]. */
export function numberIn(min: number, max: number): Guard<number> {
  return (value): value is number =>
    typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max
}

/** A safe integer in [min, max]. */
export function intIn(min: number, max: number): Guard<number> {
  return (value): value is number =>
    Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max
}

export const isBoolean: Guard<boolean> = (value): value is boolean => typeof value === 'boolean'

export const isString: Guard<string> = (value): value is string => typeof value === 'string'

/** Anything at all (an opaque payload the protocol only carries). */
export const isUnknown: Guard<unknown> = (_value): _value is unknown => true

/** One of the listed literals. */
export function oneOf<const T extends readonly (string | number | boolean)[]>(
  ...values: T
): Guard<T[number]> {
  return (value): value is T[number] => values.includes(value as T[number])
}

/** An array of at most `max` items (default unbounded), each passing `item`. */
export function arrayOf<T>(
  item: Guard<T>,
  bounds: { min?: number; max?: number } = {},
): Guard<T[]> {
  const { min = 0, max = Number.POSITIVE_INFINITY } = bounds
  return (value): value is T[] =>
    Array.isArray(value) && value.length >= min && value.length <= max && value.every(item)
}

/** `undefined` (or absent), or a value passing `guard`. */
export function optional<T>(guard: Guard<T>): Guard<T | undefined> {
  return (value): value is T | undefined => value === undefined || guard(value)
}

/** The guards of an object's fields, by field name. */
export type Fields = Readonly<Record<string, Guard<unknown>>>

type Guarded<G> = G extends Guard<infer T> ? T : never

/** The object type a `Fields` describes. */
export type ShapeOf<F extends Fields> = { [K in keyof F]: Guarded<F[K]> }

/**
 * The first field of `value` that does not fit `fields` ('' when `value` is not a record), or
 * `undefined` when it all fits. Fields not listed are allowed and left unchecked.
 */
export function misfit(fields: Fields, value: unknown): string | undefined {
  if (!isRecord(value)) return ''
  for (const key of Object.keys(fields)) if (!fields[key]!(value[key])) return key
  return undefined
}

/** A record whose listed fields pass their guards (e.g. `shape({ id: isString, n: isNonNegInt })`). */
export function shape<F extends Fields>(fields: F): Guard<ShapeOf<F>> {
  return (value): value is ShapeOf<F> => misfit(fields, value) === undefined
}

/** For each `type` of the message union `M`, the guards of its other fields. */
export type MessageFields<M extends { type: string }> = {
  readonly [K in M['type']]: {
    readonly [F in Exclude<keyof Extract<M, { type: K }>, 'type'>]-?: Guard<
      Extract<M, { type: K }>[F]
    >
  }
}

/**
 * A parser for a union of messages told apart by `type`: it returns the message when it fits
 * the declared shape of its type, else why not (`not an object`, `unknown message type "x"`,
 * `malformed <type>: <field>`). Protocols report the reason and drop the message.
 */
export function messageParser<M extends { type: string }>(
  table: MessageFields<M>,
): (value: unknown) => M | string {
  const byType = table as unknown as Record<string, Fields>
  return (value) => {
    if (!isRecord(value)) return 'not an object'
    const { type } = value
    if (typeof type !== 'string' || !Object.hasOwn(byType, type)) {
      // Quoted and cut short: the reason goes into the trace, the type came from anyone.
      const named = typeof type === 'string' ? JSON.stringify(type.slice(0, 40)) : typeof type
      return `unknown message type ${named}`
    }
    const bad = misfit(byType[type]!, value)
    return bad === undefined ? (value as unknown as M) : `malformed ${type}: ${bad}`
  }
}
