/**
 * The mark every copy of this package puts on its errors. `Symbol.for` keys are shared by all
 * module copies (CJS and ESM builds, two installed versions), where `instanceof` is not.
 */
const CLOCK_ERROR_MARK = Symbol.for('@sd/clocks.error')

/** Base class of every error `@sd/clocks` throws: `code` is stable and machine-readable. */
export class ClockError extends Error {
  readonly code: string
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
    this.name = new.target.name
    Object.defineProperty(this, CLOCK_ERROR_MARK, { value: true })
  }
}

/** An argument outside its domain: an increment d <= 0, an index out of range, a bad option. */
export class InvalidClockArgumentError extends ClockError {
  constructor(message: string) {
    super('ERR_CLOCK_ARGUMENT', message)
  }
}

/** Two dense vector clocks of different sizes were combined. */
export class ClockSizeMismatchError extends ClockError {
  readonly expected: number
  readonly actual: number
  constructor(expected: number, actual: number, operation: string) {
    super(
      'ERR_CLOCK_SIZE_MISMATCH',
      `${operation}: clock has ${expected} entries but the other has ${actual}; dense clocks need a fixed membership (use SparseVectorClock when members come and go)`,
    )
    this.expected = expected
    this.actual = actual
  }
}

/** A counter would pass Number.MAX_SAFE_INTEGER (or the HLC counter its configured maximum). */
export class ClockOverflowError extends ClockError {
  constructor(message: string) {
    super('ERR_CLOCK_OVERFLOW', message)
  }
}

/** A hybrid logical clock saw a remote (or physical) time further ahead than the tolerated skew. */
export class ClockSkewError extends ClockError {
  /** The time that was too far ahead (ms). */
  readonly remote: number
  /** The local physical time it was judged against (ms). */
  readonly physical: number
  readonly maxSkewMs: number
  constructor(remote: number, physical: number, maxSkewMs: number) {
    super(
      'ERR_CLOCK_SKEW',
      `hybrid logical clock: remote time ${remote} is ${remote - physical} ms ahead of the physical clock (${physical}), more than maxSkewMs = ${maxSkewMs}; the message was refused and the clock left unchanged (check the sender's clock, or raise maxSkewMs)`,
    )
    this.remote = remote
    this.physical = physical
    this.maxSkewMs = maxSkewMs
  }
}

/** Bytes or JSON text that do not hold a clock of the expected kind. */
export class ClockDecodeError extends ClockError {
  /** Byte offset (binary) where decoding failed, when known. */
  readonly offset: number | undefined
  constructor(message: string, offset?: number, options?: { cause?: unknown }) {
    super(
      'ERR_CLOCK_DECODE',
      offset === undefined ? message : `${message} (at byte ${offset})`,
      options,
    )
    this.offset = offset
  }
}

/** The error class behind each stable code. */
export interface ClockErrorsByCode {
  ERR_CLOCK_ARGUMENT: InvalidClockArgumentError
  ERR_CLOCK_SIZE_MISMATCH: ClockSizeMismatchError
  ERR_CLOCK_OVERFLOW: ClockOverflowError
  ERR_CLOCK_SKEW: ClockSkewError
  ERR_CLOCK_DECODE: ClockDecodeError
}

export type ClockErrorCode = keyof ClockErrorsByCode

/**
 * Whether `error` was thrown by `@sd/clocks` (any copy of it: `instanceof` fails when the CJS and
 * the ESM build are both loaded, or two versions are), and, given `code`, whether it has that code.
 */
export function isClockError<C extends ClockErrorCode>(
  error: unknown,
  code: C,
): error is ClockErrorsByCode[C]
export function isClockError(error: unknown, code?: string): error is ClockError
export function isClockError(error: unknown, code?: string): error is ClockError {
  if (typeof error !== 'object' || error === null) return false
  if ((error as Record<symbol, unknown>)[CLOCK_ERROR_MARK] !== true) return false
  const actual = (error as { code?: unknown }).code
  return typeof actual === 'string' && (code === undefined || actual === code)
}
