/**
 * The memo of the search (Lowe's improvement of Wing & Gong): a configuration is the set of
 * operations linearized so far and the model's state after them. Two paths that reach the same
 * configuration have the same future, so the second one is cut.
 *
 * The set is a bitset with a Zobrist hash (each operation has a fixed random 32-bit value, the
 * set's hash is their XOR), updated in O(1) as operations are linearized and undone.
 */
import { mix32 } from './hash.js'

export class LinearizedSet {
  readonly words: Uint32Array
  hash = 0

  constructor(size: number) {
    this.words = new Uint32Array(Math.ceil(size / 32))
  }

  add(i: number): void {
    this.words[i >>> 5]! |= 1 << (i & 31)
    this.hash ^= mix32(i + 1)
  }

  remove(i: number): void {
    this.words[i >>> 5]! &= ~(1 << (i & 31))
    this.hash ^= mix32(i + 1)
  }
}

function sameWords(a: Uint32Array, b: Uint32Array): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

export class ConfigurationMemo<S> {
  private readonly buckets = new Map<number, { words: Uint32Array; state: S }[]>()

  constructor(
    private readonly equal: (a: S, b: S) => boolean,
    private readonly hash: (state: S) => number,
  ) {}

  /** Records (set, state); false when it was seen before. */
  add(set: LinearizedSet, state: S): boolean {
    const key = (set.hash ^ Math.imul(this.hash(state) | 0, 0x9e3779b1)) >>> 0
    const bucket = this.buckets.get(key)
    if (bucket === undefined) {
      this.buckets.set(key, [{ words: set.words.slice(), state }])
      return true
    }
    for (const seen of bucket)
      if (sameWords(seen.words, set.words) && this.equal(seen.state, state)) return false
    bucket.push({ words: set.words.slice(), state })
    return true
  }
}
