/**
 * A 64-bit hash of plain data read as it is, without writing its canonical text: what the
 * stateful explorer hashes a node's snapshot by, state after state. Canonical as `canonicalKey`
 * is: data with equal keys hash equal (an object's entries are summed, so the order its keys were
 * made in does not count; -0 is 0). It refuses what `canonicalKey` refuses, and then
 * `canonicalKey` is asked, to say where. Strings are numbered once each (up to a bound, then
 * hashed by their characters): most snapshots repeat the same few names and states.
 */
import { canonicalKey } from './canonical.js'
import { fmix, type Hash64 } from './hash64.js'

const MAX_DEPTH = 200
/** Strings numbered so far; beyond this many, new ones are hashed by their characters. */
const MAX_NUMBERED = 1 << 16
const LONG = 64
const numbered = new Map<string, number>()
/** The two lanes of each numbered string's hash, by its number: worked out once. */
const stringLanes = new Int32Array(2 * MAX_NUMBERED)

/** Thrown inside for anything `canonicalKey` refuses. */
const REFUSED = Symbol('refused')

// The hash of the value last walked, as two 32-bit lanes: in a typed array, so that storing a
// lane allocates no number object (most do not fit a small integer).
const out = new Int32Array(2)

/**
 * The hash of `value` (see the module's comment), into `into`. `root` names it when it is refused
 * (asked only then).
 */
export function hashValue(
  value: unknown,
  into: Hash64,
  root: () => string = () => 'value',
): Hash64 {
  try {
    walk(value, 0)
  } catch (error) {
    if (error !== REFUSED) throw error
    canonicalKey(value, root()) // throws, naming where
    throw new Error(`hashValue: ${root()} was refused, yet canonicalKey took it`)
  }
  into.hi = out[0]! >>> 0
  into.lo = out[1]! >>> 0
  return into
}

function mix(h: number, w: number): number {
  let k = Math.imul(w, 0xcc9e2d51)
  k = (k << 15) | (k >>> 17)
  k = Math.imul(k, 0x1b873593)
  let x = h ^ k
  x = (x << 13) | (x >>> 19)
  return (Math.imul(x, 5) + 0xe6546b64) | 0
}

/** Sets the out lanes from a tag and two words. */
function leaf(tag: number, a: number, b: number): void {
  const h = mix(mix(0x2545f491 ^ tag, a), b)
  const l = mix(mix(0x5851f42d ^ Math.imul(tag, 0x9e3779b9), b ^ 0x85ebca77), a)
  out[0] = fmix(h ^ 8)
  out[1] = fmix(l ^ 0x27d4eb2f)
}

const float = new Float64Array(1)
const words = new Uint32Array(float.buffer)

/**
 * The lanes of null, false, true and the small whole numbers (clocks, ids, counters: most of a
 * snapshot's leaves), worked out once: 0 while not yet (a lane is 0 for 1 value in 2^32, then it
 * is only worked out again).
 */
const SMALL = 1024
const constLanes = new Int32Array(2 * (3 + SMALL))

/** `leaf(tag, a, 0)` through the cache at `slot`. */
function cachedLeaf(slot: number, tag: number, a: number): void {
  const hi = constLanes[2 * slot]!
  if (hi !== 0) {
    out[0] = hi
    out[1] = constLanes[2 * slot + 1]!
    return
  }
  leaf(tag, a, 0)
  constLanes[2 * slot] = out[0]!
  constLanes[2 * slot + 1] = out[1]!
}

function walkString(s: string): void {
  let id = numbered.get(s)
  if (id === undefined && s.length <= LONG && numbered.size < MAX_NUMBERED) {
    id = numbered.size
    numbered.set(s, id)
    leaf(4, id, 0x51ed27)
    stringLanes[2 * id] = out[0]!
    stringLanes[2 * id + 1] = out[1]!
    return
  }
  if (id !== undefined) {
    out[0] = stringLanes[2 * id]!
    out[1] = stringLanes[2 * id + 1]!
    return
  }
  let h = 0x811c9dc5
  let l = 0x9747b28c
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    h = mix(h, c)
    l = mix(l, c ^ 0x5bd1e995)
  }
  leaf(5, fmix(h ^ s.length), fmix(l))
}

function walk(value: unknown, depth: number): void {
  if (value === null) {
    cachedLeaf(0, 0, 0)
    return
  }
  switch (typeof value) {
    case 'string':
      walkString(value)
      return
    case 'boolean':
      cachedLeaf(value ? 2 : 1, 1, value ? 1 : 0)
      return
    case 'number':
      if (!Number.isFinite(value)) throw REFUSED
      // -0 and 0 are one key (as `canonicalKey` writes them).
      if ((value | 0) === value) {
        if (value >= 0 && value < SMALL) cachedLeaf(3 + value, 2, value)
        else leaf(2, value | 0, 0)
      } else {
        float[0] = value
        leaf(3, words[0]!, words[1]!)
      }
      return
    case 'object':
      break
    default:
      throw REFUSED
  }
  if (depth > MAX_DEPTH) throw REFUSED
  if (Array.isArray(value)) {
    const n = value.length
    let h = 0x3c6ef372 ^ n
    let l = 0xa54ff53a ^ Math.imul(n, 0x2c1b3c6d)
    for (let i = 0; i < n; i++) {
      walk(value[i], depth + 1)
      h = mix(h, out[0]!)
      l = mix(l, out[1]!)
    }
    out[0] = fmix(h ^ 6)
    out[1] = fmix(l ^ Math.imul(n + 1, 0x27d4eb2f))
    return
  }
  const proto = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) throw REFUSED
  // Entries summed: a multiset of (key, value) pairs, whatever order the keys come in.
  let sumHi = 0
  let sumLo = 0
  let n = 0
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue
    walk((value as Record<string, unknown>)[key], depth + 1)
    const vHi = out[0]!
    const vLo = out[1]!
    walkString(key)
    // The key's lanes (well mixed already) with the value's, crossed, then mixed once each.
    const h = fmix(((out[0]! ^ vHi) + Math.imul(vLo, 0x9e3779b1)) | 0)
    const l = fmix(((out[1]! ^ vLo) + Math.imul(vHi, 0x85ebca77)) | 0)
    sumHi = (sumHi + h) | 0
    sumLo = (sumLo + l) | 0
    n++
  }
  leaf(7, sumHi ^ Math.imul(n, 0x9e3779b1), sumLo)
}
