import { addChecked, checkCounter, checkIncrement } from './arguments.js'
import type { Ordering, VectorView } from './compare.js'
import { ClockSizeMismatchError, InvalidClockArgumentError } from './errors.js'

/** Anything with n numeric entries: a DenseVectorClock, a Float64Array, a number[]. */
export type DenseLike = DenseVectorClock | ArrayLike<number>

function entriesOf(v: DenseLike): ArrayLike<number> {
  return v instanceof DenseVectorClock ? v.values : v
}

/**
 * Compares two dense vectors of the same size. One pass, stops at the first proof of concurrency.
 * This is the hot path: plain indexed loop, no allocation.
 */
export function compareDense(a: DenseLike, b: DenseLike): Ordering {
  const x = entriesOf(a)
  const y = entriesOf(b)
  const n = x.length
  if (y.length !== n) throw new ClockSizeMismatchError(n, y.length, 'compare')
  let less = false
  let greater = false
  for (let k = 0; k < n; k++) {
    const xk = x[k]!
    const yk = y[k]!
    if (xk < yk) {
      if (greater) return 'concurrent'
      less = true
    } else if (xk > yk) {
      if (less) return 'concurrent'
      greater = true
    }
  }
  return less ? 'before' : greater ? 'after' : 'equal'
}

/**
 * A vector clock for a fixed group of n processes, numbered 0..n-1 (Fidge, Mattern, Schmuck).
 * Entries live in a Float64Array (exact integers up to 2^53). R1: V[self] += d before each event.
 * R2: on receipt V[k] = max(V[k], V_msg[k]) for all k, then R1. Strong clock condition:
 * a -> b iff V(a) < V(b). Mutating methods return `this`; `snapshot()` copies a timestamp.
 */
export class DenseVectorClock implements VectorView<number> {
  /** The index of the process that owns this clock. */
  readonly self: number
  /** The entries; read freely, write only through the methods. */
  readonly values: Float64Array

  /**
   * @param size the number of processes n
   * @param self this process's index in 0..n-1
   * @param values initial entries (default all zero)
   */
  constructor(size: number, self: number, values?: ArrayLike<number>) {
    if (!Number.isSafeInteger(size) || size < 1) {
      throw new InvalidClockArgumentError(
        `DenseVectorClock: size must be an integer >= 1, got ${size}`,
      )
    }
    if (!Number.isInteger(self) || self < 0 || self >= size) {
      throw new InvalidClockArgumentError(
        `DenseVectorClock: self must be an index in 0..${size - 1}, got ${self}`,
      )
    }
    this.self = self
    this.values = new Float64Array(size)
    if (values !== undefined) {
      if (values.length !== size) throw new ClockSizeMismatchError(size, values.length, 'create')
      for (let k = 0; k < size; k++) {
        const v = values[k]!
        checkCounter(v, `DenseVectorClock entry ${k}`)
        this.values[k] = v
      }
    }
  }

  /** A clock for process `self` with the given entries (e.g. a received timestamp). */
  static from(values: ArrayLike<number>, self = 0): DenseVectorClock {
    return new DenseVectorClock(values.length, self, values)
  }

  /** The number of processes n. */
  get size(): number {
    return this.values.length
  }

  /** This process's own entry V[self]. */
  get local(): number {
    return this.values[this.self]!
  }

  get(index: number): number {
    return this.values[index] ?? 0
  }

  *keys(): IterableIterator<number> {
    const v = this.values
    for (let k = 0; k < v.length; k++) if (v[k]! !== 0) yield k
  }

  /** R1: V[self] += d (d > 0, default 1). */
  tick(d = 1): this {
    if (d !== 1) checkIncrement(d, 'DenseVectorClock.tick')
    const v = this.values
    v[this.self] = addChecked(v[this.self]!, d, 'DenseVectorClock.tick')
    return this
  }

  /** V[k] = max(V[k], other[k]) for all k, without the local tick. */
  merge(other: DenseLike): this {
    const v = this.values
    const o = entriesOf(other)
    const n = v.length
    if (o.length !== n) throw new ClockSizeMismatchError(n, o.length, 'merge')
    for (let k = 0; k < n; k++) {
      const ok = o[k]!
      if (ok > v[k]!) v[k] = ok
    }
    return this
  }

  /** R2: merge the message's timestamp, then R1. */
  receive(other: DenseLike, d = 1): this {
    if (!(other instanceof DenseVectorClock)) {
      // Foreign arrays are checked: a NaN or a fraction would silently poison the clock.
      const o = other
      for (let k = 0; k < o.length; k++) checkCounter(o[k]!, `received entry ${k}`)
    }
    return this.merge(other).tick(d)
  }

  compare(other: DenseLike): Ordering {
    return compareDense(this, other)
  }

  /** This timestamp strictly precedes `other`: V < V'. */
  happenedBefore(other: DenseLike): boolean {
    return compareDense(this, other) === 'before'
  }

  isConcurrent(other: DenseLike): boolean {
    return compareDense(this, other) === 'concurrent'
  }

  equals(other: DenseLike): boolean {
    return compareDense(this, other) === 'equal'
  }

  sum(): number {
    let s = 0
    const v = this.values
    for (let k = 0; k < v.length; k++) s += v[k]!
    return s
  }

  /** #(e) = sum - 1, the number of events that causally precede this timestamp's event. */
  predecessors(): number {
    return this.sum() - 1
  }

  /** A copy (the timestamp of the current event). */
  snapshot(): DenseVectorClock {
    const copy = new DenseVectorClock(this.values.length, this.self)
    copy.values.set(this.values)
    return copy
  }

  clone(): DenseVectorClock {
    return this.snapshot()
  }

  toArray(): number[] {
    return Array.from(this.values)
  }

  toString(): string {
    return `[${this.toArray().join(', ')}]`
  }

  toJSON(): { kind: 'vector-dense'; self: number; values: number[] } {
    return { kind: 'vector-dense', self: this.self, values: this.toArray() }
  }
}
