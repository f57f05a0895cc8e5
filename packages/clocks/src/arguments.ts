/**
 * Guards on the arguments callers pass to the clocks (increments, entries, sums): a wrong one
 * throws InvalidClockArgumentError, a sum past 2^53 ClockOverflowError.
 */
import { ClockOverflowError, InvalidClockArgumentError } from './errors.js'

/** Increments must be positive safe integers: the texts ask for d > 0, the codecs for integers. */
export function checkIncrement(d: number, where: string): void {
  if (!Number.isSafeInteger(d) || d <= 0) {
    throw new InvalidClockArgumentError(`${where}: increment d must be an integer > 0, got ${d}`)
  }
}

export function checkCounter(value: number, where: string): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new InvalidClockArgumentError(
      `${where}: a clock entry must be an integer >= 0, got ${value}`,
    )
  }
}

/** a + d, refusing to leave the range where doubles count exactly. */
export function addChecked(a: number, d: number, where: string): number {
  const sum = a + d
  if (sum > Number.MAX_SAFE_INTEGER) {
    throw new ClockOverflowError(
      `${where}: ${a} + ${d} passes Number.MAX_SAFE_INTEGER; the clock cannot count exactly any more`,
    )
  }
  return sum
}
