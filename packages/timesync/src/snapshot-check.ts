/**
 * What the protocols' `restore()` share: a snapshot is checked field by field before it is taken
 * on, so a value of another shape (another protocol's state, a corrupted file) is refused with
 * `InvalidArgumentError`, naming the field, never read as a fresh node.
 */
import {
  type Fields,
  type Guard,
  InvalidArgumentError,
  isFiniteNumber,
  misfit,
  type ShapeOf,
} from '@sd/transport'

/** `null`, or a value passing `guard` (a snapshot writes what is absent as null). */
export const orNull =
  <T>(guard: Guard<T>): Guard<T | null> =>
  (value): value is T | null =>
    value === null || guard(value)

/** A finite number or null: a bound never reached (-Infinity) is written null. */
export const isFiniteOrNull = orNull(isFiniteNumber)

/** `value` as `fields` type it; throws `InvalidArgumentError` naming `what` and the misfit field. */
export function checkSnapshot<F extends Fields>(
  what: string,
  fields: F,
  value: unknown,
): ShapeOf<F> {
  const bad = misfit(fields, value)
  if (bad === undefined) return value as ShapeOf<F>
  throw new InvalidArgumentError(
    bad === ''
      ? `${what}: restore() takes the object snapshot() gave`
      : `${what}: restore(): ${bad} is not what snapshot() gives`,
  )
}
