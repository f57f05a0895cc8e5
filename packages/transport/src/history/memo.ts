/**
 * The memo of the search (Lowe's improvement of Wing & Gong): a configuration is the set of
 * operations linearized so far and the model's state after them. Two paths that reach the same
 * configuration have the same future, so the second one is cut. The search records a
 * configuration when it backs out of it, explored in full without success (one on the current
 * path cannot be reached again: the set only grows along it), so a history that needs no
 * backtracking pays a lookup per step and no copies.
 *
 * Pending operations weaken the match: a recorded failure with the same completed operations and
 * state, and a subset of our pending ones, means we fail too (whatever we could still do, it
 * could do, leaving its extra pending operations out). So the hash covers completed operations
 * only, and the pending ones are compared as sets. Without this, each pending write that may
 * have landed doubles the configurations the search can meet.
 *
 * The set is a bitset with a Zobrist hash (each operation has a fixed random 32-bit value, the
 * set's hash is their XOR), updated in O(1). The memo keeps a compact copy: the search
 * linearizes completed operations near a frontier (every one before it is in the set), so only
 * the words from the frontier up need keeping; the whole bitset would cost a history of 10,000
 * operations 1.25 KB per configuration.
 */
import { mix32 } from './hash.js'

/** What the memo keeps of a set: its completed part from the frontier up, and its pending part. */
export interface CompactSet {
  low: number
  completed: Uint32Array
  pending: Uint32Array
}

export class LinearizedSet {
  /** Completed operations in the set, by operation number. */
  private readonly words: Uint32Array
  /** Pending operations in the set, by their number among the pending ones. */
  private readonly pendingWords: Uint32Array
  /** Zobrist hash of the completed operations in the set. */
  hash = 0
  /** Every completed operation in words below `low` is in the set (raised lazily). */
  private low = 0
  /** No word above `high` has a bit set (lowered lazily). */
  private high = -1
  private readonly completedMask: Uint32Array
  /** Operation -> its number among the pending ones, or -1 when it completed. */
  private readonly pendingNumber: Int32Array

  constructor(completed: readonly boolean[]) {
    const n = completed.length
    this.words = new Uint32Array(Math.ceil(n / 32))
    this.completedMask = new Uint32Array(this.words.length)
    this.pendingNumber = new Int32Array(n).fill(-1)
    let pending = 0
    for (let i = 0; i < n; i++) {
      if (completed[i]) this.completedMask[i >>> 5]! |= 1 << (i & 31)
      else this.pendingNumber[i] = pending++
    }
    this.pendingWords = new Uint32Array(Math.ceil(pending / 32))
  }

  add(i: number): void {
    if (this.flip(i) && i >>> 5 > this.high) this.high = i >>> 5
  }

  remove(i: number): void {
    if (this.flip(i) && i >>> 5 < this.low) this.low = i >>> 5
  }

  /** Adds or removes `i`; true when it is a completed operation. */
  private flip(i: number): boolean {
    const p = this.pendingNumber[i]!
    if (p >= 0) {
      this.pendingWords[p >>> 5]! ^= 1 << (p & 31)
      return false
    }
    this.words[i >>> 5]! ^= 1 << (i & 31)
    this.hash ^= mix32(i + 1)
    return true
  }

  compact(): CompactSet {
    const { words, completedMask } = this
    while (this.low < words.length && words[this.low] === completedMask[this.low]) this.low++
    while (this.high >= this.low && words[this.high] === 0) this.high--
    return {
      low: this.low,
      completed: words.slice(this.low, Math.max(this.low, this.high + 1)),
      pending: this.pendingWords.slice(),
    }
  }
}

function sameWords(a: Uint32Array, b: Uint32Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

function subset(a: Uint32Array, b: Uint32Array): boolean {
  for (let i = 0; i < a.length; i++) if ((a[i]! & ~b[i]!) !== 0) return false
  return true
}

/** `seen` failed, so `set` fails: the same completed operations, no pending one more. */
function dominates(seen: CompactSet, set: CompactSet): boolean {
  return (
    seen.low === set.low &&
    sameWords(seen.completed, set.completed) &&
    subset(seen.pending, set.pending)
  )
}

export class ConfigurationMemo<S> {
  private readonly buckets = new Map<number, { set: CompactSet; state: S }[]>()

  constructor(
    private readonly equal: (a: S, b: S) => boolean,
    private readonly hash: (state: S) => number,
  ) {}

  private key(set: LinearizedSet, state: S): number {
    return (set.hash ^ Math.imul(this.hash(state) | 0, 0x9e3779b1)) >>> 0
  }

  /** Whether a recorded failure implies this configuration fails; copies only on a hash match. */
  failed(set: LinearizedSet, state: S): boolean {
    const bucket = this.buckets.get(this.key(set, state))
    if (bucket === undefined) return false
    const compact = set.compact()
    return bucket.some((seen) => dominates(seen.set, compact) && this.equal(seen.state, state))
  }

  /** Records a configuration explored in full without success. */
  add(set: LinearizedSet, state: S): void {
    const key = this.key(set, state)
    const entry = { set: set.compact(), state }
    const bucket = this.buckets.get(key)
    if (bucket === undefined) this.buckets.set(key, [entry])
    else bucket.push(entry)
  }
}
