/**
 * 64-bit hashing without text: the stateful explorer's state key is mixed from hashes of parts
 * cached where they were made (a node's entry, a message), so no key string is written per state.
 * Two 32-bit lanes, each seeing every word, with murmur3's word mixing and finalizer. As with
 * `hashKey`, storing these instead of states is hash compaction: with n states, two distinct ones
 * collide with probability about n² / 2^65.
 */

/** A 64-bit hash as two unsigned 32-bit halves. */
export interface Hash64 {
  hi: number
  lo: number
}

/** The 64-bit hash of a text (the lanes of `hashKey`, left as numbers). */
export function hashText(text: string): Hash64 {
  let a = 0x811c9dc5
  let b = 0x9747b28c
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    a = Math.imul(a ^ c, 0x01000193)
    b = Math.imul(b ^ c, 0x5bd1e995)
    b ^= b >>> 15
  }
  return { hi: fmix(a ^ text.length), lo: fmix(b) }
}

export function fmix(h: number): number {
  let x = h
  x ^= x >>> 16
  x = Math.imul(x, 0x85ebca6b)
  x ^= x >>> 13
  x = Math.imul(x, 0xc2b2ae35)
  x ^= x >>> 16
  return x >>> 0
}

const float = new Float64Array(1)
const words = new Uint32Array(float.buffer)

/** Mixes words into a 64-bit hash, in order: call `reset`, then `word`s, then `finish`. */
export class Mixer {
  private a = 0
  private b = 0
  private n = 0

  reset(): this {
    this.a = 0x2545f491
    this.b = 0x5851f42d
    this.n = 0
    return this
  }

  word(w: number): this {
    this.a = step(this.a, w, 0xcc9e2d51, 0x1b873593)
    this.b = step(this.b, w ^ 0x9e3779b9, 0x85ebca77, 0xc2b2ae3d)
    this.n++
    return this
  }

  pair(h: Hash64): this {
    return this.word(h.hi).word(h.lo)
  }

  /** Any number, by its 64 bits (an integer or not). */
  number(x: number): this {
    if ((x | 0) === x) return this.word(x).word(0x7f4a7c15)
    float[0] = x
    return this.word(words[0]!).word(words[1]!)
  }

  finish(into: Hash64): Hash64 {
    into.hi = fmix(this.a ^ this.n)
    into.lo = fmix(this.b ^ Math.imul(this.n, 0x27d4eb2f))
    return into
  }
}

function step(h: number, w: number, c1: number, c2: number): number {
  let k = Math.imul(w, c1)
  k = (k << 15) | (k >>> 17)
  k = Math.imul(k, c2)
  let x = h ^ k
  x = (x << 13) | (x >>> 19)
  return (Math.imul(x, 5) + 0xe6546b64) | 0
}

/** Orders hashes, for sorting a multiset into a canonical order. */
export const compareHash = (a: Hash64, b: Hash64): number => a.hi - b.hi || a.lo - b.lo

/** The 16 hex digits `hashKey` would write for this hash. */
export const hashHex = (h: Hash64): string =>
  h.hi.toString(16).padStart(8, '0') + h.lo.toString(16).padStart(8, '0')

/** The hash a 16-hex-digit key stands for. */
export const hashOfHex = (key: string): Hash64 => ({
  hi: Number.parseInt(key.slice(0, 8), 16) >>> 0,
  lo: Number.parseInt(key.slice(8, 16), 16) >>> 0,
})
