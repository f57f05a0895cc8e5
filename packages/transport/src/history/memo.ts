/**
 * The memo of the search (Lowe's improvement of Wing & Gong): a configuration is the set of
 * operations linearized so far and the model's state after them. Two paths that reach the same
 * configuration have the same future, so the second one is cut. The search records a
 * configuration when it backs out of it, explored in full without success (one on the current
 * path cannot be reached again: the set only grows along it), so a history that needs no
 * backtracking pays a lookup per step and no copies.
 *
 * The set is a bitset with a Zobrist hash (each operation has a fixed random 32-bit value, the
 * set's hash is their XOR), updated in O(1) as operations are linearized and undone. The memo
 * keeps a compact copy of it: the search linearizes operations near a frontier (every completed
 * operation before it is in the set), so only the words from the frontier up, and which pending
 * operations below it are in, need keeping; a copy of the whole bitset per configuration would
 * cost a history of 10,000 operations 1.25 KB each.
 */
import { mix32 } from './hash.js'

export class LinearizedSet {
  readonly words: Uint32Array
  hash = 0
  /** Every completed operation in words below `low` is in the set (a lower bound, raised lazily). */
  private low = 0
  /** No word above `high` has a bit set (an upper bound, lowered lazily). */
  private high = -1
  private readonly completedMask: Uint32Array
  /** Operation -> its number among the pending ones (-1: completed), and the pending bits. */
  private readonly pendingNumber: Int32Array
  private readonly pendingWords: Uint32Array
  /** Pending operations in words below w: how many. */
  private readonly pendingBefore: Int32Array

  constructor(completed: readonly boolean[]) {
    const n = completed.length
    const size = Math.ceil(n / 32)
    this.words = new Uint32Array(size)
    this.completedMask = new Uint32Array(size)
    this.pendingNumber = new Int32Array(n).fill(-1)
    this.pendingBefore = new Int32Array(size + 1)
    let pending = 0
    for (let i = 0; i < n; i++) {
      if ((i & 31) === 0) this.pendingBefore[i >>> 5] = pending
      if (completed[i]) this.completedMask[i >>> 5]! |= 1 << (i & 31)
      else this.pendingNumber[i] = pending++
    }
    this.pendingBefore[size] = pending
    this.pendingWords = new Uint32Array(Math.ceil(pending / 32))
  }

  add(i: number): void {
    this.flip(i)
    if (i >>> 5 > this.high) this.high = i >>> 5
  }

  remove(i: number): void {
    this.flip(i)
    if (i >>> 5 < this.low) this.low = i >>> 5
  }

  private flip(i: number): void {
    this.words[i >>> 5]! ^= 1 << (i & 31)
    this.hash ^= mix32(i + 1)
    const p = this.pendingNumber[i]!
    if (p >= 0) this.pendingWords[p >>> 5]! ^= 1 << (p & 31)
  }

  /** A copy that tells this set from any other of the same history: [low, words..., pending...]. */
  compact(): Uint32Array {
    const { words, completedMask } = this
    while (
      this.low < words.length &&
      (words[this.low]! & completedMask[this.low]!) === completedMask[this.low]
    )
      this.low++
    while (this.high >= this.low && words[this.high] === 0) this.high--
    const low = this.low
    const span = Math.max(0, this.high - low + 1)
    const pendingBelow = this.pendingBefore[low]!
    const pendingSpan = Math.ceil(pendingBelow / 32)
    const out = new Uint32Array(1 + span + pendingSpan)
    out[0] = low
    out.set(words.subarray(low, low + span), 1)
    out.set(this.pendingWords.subarray(0, pendingSpan), 1 + span)
    // Pending operations from `low` up are in the words already: keep only those below.
    if (pendingBelow & 31) out[out.length - 1]! &= (1 << (pendingBelow & 31)) - 1
    return out
  }
}

function sameWords(a: Uint32Array, b: Uint32Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

export class ConfigurationMemo<S> {
  private readonly buckets = new Map<number, { set: Uint32Array; state: S }[]>()

  constructor(
    private readonly equal: (a: S, b: S) => boolean,
    private readonly hash: (state: S) => number,
  ) {}

  private key(set: LinearizedSet, state: S): number {
    return (set.hash ^ Math.imul(this.hash(state) | 0, 0x9e3779b1)) >>> 0
  }

  /** Whether (set, state) was recorded; the compact copy is made only when its hash was. */
  has(set: LinearizedSet, state: S): boolean {
    const bucket = this.buckets.get(this.key(set, state))
    if (bucket === undefined) return false
    const compact = set.compact()
    return bucket.some((seen) => sameWords(seen.set, compact) && this.equal(seen.state, state))
  }

  add(set: LinearizedSet, state: S): void {
    const key = this.key(set, state)
    const entry = { set: set.compact(), state }
    const bucket = this.buckets.get(key)
    if (bucket === undefined) this.buckets.set(key, [entry])
    else bucket.push(entry)
  }
}
