import { createHash } from 'node:crypto'

/**
 * HMAC-SHA256 (RFC 2104 over FIPS 180-4) in plain JavaScript, for datagram-sized inputs.
 * Why not node:crypto: for a ~100-byte datagram the native call overhead and the Buffers each
 * call allocates cost more than the hashing. Here the states after the ipad and opad blocks are
 * computed once per key, and a MAC is 2-3 compressions with no allocation at all.
 * Checked against node:crypto's createHmac in hmac-sha256.test.ts.
 */

const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
])
const IV = new Int32Array([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
])

const rotr = (x: number, n: number) => (x >>> n) | (x << (32 - n))

/** Loads the 64 bytes at `bytes[at..]` into `w[0..15]` as big-endian words. */
function load(w: Int32Array, bytes: Uint8Array, at: number): void {
  for (let i = 0; i < 16; i++, at += 4) {
    w[i] = (bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!
  }
}

/**
 * One SHA-256 compression of the block in `w[0..15]` into `state` (`w[16..63]` is scratch).
 * Reading words, never bytes, keeps this function monomorphic: Buffers and plain Uint8Arrays
 * are loaded by `load`, and the outer hash of the HMAC never goes through bytes at all.
 */
function compress(state: Int32Array, w: Int32Array): void {
  for (let i = 16; i < 64; i++) {
    const x = w[i - 15]!
    const y = w[i - 2]!
    const s0 = rotr(x, 7) ^ rotr(x, 18) ^ (x >>> 3)
    const s1 = rotr(y, 17) ^ rotr(y, 19) ^ (y >>> 10)
    w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) | 0
  }
  let a = state[0]!
  let b = state[1]!
  let c = state[2]!
  let d = state[3]!
  let e = state[4]!
  let f = state[5]!
  let g = state[6]!
  let h = state[7]!
  let t1 = 0
  // Eight rounds per iteration with the roles of a..h rotated instead of shifting eight variables
  // each round (the textbook loop): about 8% faster here. Round r: t1 = h + S1(e) + ch(e, f, g) + K + w;
  // d += t1; h = t1 + S0(a) + maj(a, b, c); then every letter moves one place.
  for (let i = 0; i < 64; i += 8) {
    t1 =
      (h +
        (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) +
        ((e & f) ^ (~e & g)) +
        K[i + 0]! +
        w[i + 0]!) |
      0
    d = (d + t1) | 0
    h = (t1 + (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0
    t1 =
      (g +
        (rotr(d, 6) ^ rotr(d, 11) ^ rotr(d, 25)) +
        ((d & e) ^ (~d & f)) +
        K[i + 1]! +
        w[i + 1]!) |
      0
    c = (c + t1) | 0
    g = (t1 + (rotr(h, 2) ^ rotr(h, 13) ^ rotr(h, 22)) + ((h & a) ^ (h & b) ^ (a & b))) | 0
    t1 =
      (f +
        (rotr(c, 6) ^ rotr(c, 11) ^ rotr(c, 25)) +
        ((c & d) ^ (~c & e)) +
        K[i + 2]! +
        w[i + 2]!) |
      0
    b = (b + t1) | 0
    f = (t1 + (rotr(g, 2) ^ rotr(g, 13) ^ rotr(g, 22)) + ((g & h) ^ (g & a) ^ (h & a))) | 0
    t1 =
      (e +
        (rotr(b, 6) ^ rotr(b, 11) ^ rotr(b, 25)) +
        ((b & c) ^ (~b & d)) +
        K[i + 3]! +
        w[i + 3]!) |
      0
    a = (a + t1) | 0
    e = (t1 + (rotr(f, 2) ^ rotr(f, 13) ^ rotr(f, 22)) + ((f & g) ^ (f & h) ^ (g & h))) | 0
    t1 =
      (d +
        (rotr(a, 6) ^ rotr(a, 11) ^ rotr(a, 25)) +
        ((a & b) ^ (~a & c)) +
        K[i + 4]! +
        w[i + 4]!) |
      0
    h = (h + t1) | 0
    d = (t1 + (rotr(e, 2) ^ rotr(e, 13) ^ rotr(e, 22)) + ((e & f) ^ (e & g) ^ (f & g))) | 0
    t1 =
      (c +
        (rotr(h, 6) ^ rotr(h, 11) ^ rotr(h, 25)) +
        ((h & a) ^ (~h & b)) +
        K[i + 5]! +
        w[i + 5]!) |
      0
    g = (g + t1) | 0
    c = (t1 + (rotr(d, 2) ^ rotr(d, 13) ^ rotr(d, 22)) + ((d & e) ^ (d & f) ^ (e & f))) | 0
    t1 =
      (b +
        (rotr(g, 6) ^ rotr(g, 11) ^ rotr(g, 25)) +
        ((g & h) ^ (~g & a)) +
        K[i + 6]! +
        w[i + 6]!) |
      0
    f = (f + t1) | 0
    b = (t1 + (rotr(c, 2) ^ rotr(c, 13) ^ rotr(c, 22)) + ((c & d) ^ (c & e) ^ (d & e))) | 0
    t1 =
      (a +
        (rotr(f, 6) ^ rotr(f, 11) ^ rotr(f, 25)) +
        ((f & g) ^ (~f & h)) +
        K[i + 7]! +
        w[i + 7]!) |
      0
    e = (e + t1) | 0
    a = (t1 + (rotr(b, 2) ^ rotr(b, 13) ^ rotr(b, 22)) + ((b & c) ^ (b & d) ^ (c & d))) | 0
  }
  state[0] = (state[0]! + a) | 0
  state[1] = (state[1]! + b) | 0
  state[2] = (state[2]! + c) | 0
  state[3] = (state[3]! + d) | 0
  state[4] = (state[4]! + e) | 0
  state[5] = (state[5]! + f) | 0
  state[6] = (state[6]! + g) | 0
  state[7] = (state[7]! + h) | 0
}

export class HmacSha256 {
  private readonly innerStart = new Int32Array(8)
  private readonly outerStart = new Int32Array(8)
  private readonly state = new Int32Array(8)
  private readonly w = new Int32Array(64)

  constructor(key: Uint8Array) {
    const k = key.length > 64 ? createHash('sha256').update(key).digest() : key
    const pad = new Uint8Array(64)
    for (const [start, byte] of [
      [this.innerStart, 0x36],
      [this.outerStart, 0x5c],
    ] as const) {
      pad.fill(byte)
      for (let i = 0; i < k.length; i++) pad[i] = k[i]! ^ byte
      start.set(IV)
      load(this.w, pad, 0)
      compress(start, this.w)
    }
  }

  /** Writes HMAC(key, data[start..end)) into out[at..at+32). */
  mac(data: Uint8Array, start: number, end: number, out: Uint8Array, at: number): void {
    this.compute(data, start, end)
    const state = this.state
    for (let i = 0; i < 8; i++, at += 4) {
      const v = state[i]!
      out[at] = v >>> 24
      out[at + 1] = v >>> 16
      out[at + 2] = v >>> 8
      out[at + 3] = v
    }
  }

  /** Constant-time comparison of HMAC(key, data[start..end)) with mac[macAt..macAt+32), word by word, no early exit. */
  verify(data: Uint8Array, start: number, end: number, mac: Uint8Array, macAt: number): boolean {
    this.compute(data, start, end)
    const state = this.state
    let diff = 0
    for (let i = 0; i < 8; i++, macAt += 4) {
      const word =
        (mac[macAt]! << 24) | (mac[macAt + 1]! << 16) | (mac[macAt + 2]! << 8) | mac[macAt + 3]!
      diff |= state[i]! ^ word
    }
    return diff === 0
  }

  /**
   * HMAC into `this.state`: the inner hash continues from the ipad midstate over the data and its
   * padding (one compression per 64 bytes, one or two for the tail); the outer one is a single
   * compression from the opad midstate of a block built from the inner state's words.
   */
  private compute(data: Uint8Array, start: number, end: number): void {
    const state = this.state
    const w = this.w
    state.set(this.innerStart)
    let at = start
    for (; at + 64 <= end; at += 64) {
      load(w, data, at)
      compress(state, w)
    }
    // The tail, its 0x80 and the length, written as words: no byte buffer, no copy.
    const rest = end - at
    for (let i = 0; i < 16; i++) w[i] = 0
    for (let i = 0; i < rest; i++) w[i >> 2]! |= data[at + i]! << (24 - 8 * (i & 3))
    w[rest >> 2]! |= 0x80 << (24 - 8 * (rest & 3))
    if (rest + 9 > 64) {
      compress(state, w)
      for (let i = 0; i < 16; i++) w[i] = 0
    }
    // Message length in bits after the 64-byte pad block; datagrams are far below 2^32 bits.
    w[15] = (64 + end - start) * 8
    compress(state, w)
    // Outer hash: opad midstate, then the 32-byte inner digest, 0x80, zeros, length 96 bytes.
    for (let i = 0; i < 8; i++) w[i] = state[i]!
    w[8] = 0x80000000 | 0
    for (let i = 9; i < 15; i++) w[i] = 0
    w[15] = (64 + 32) * 8
    state.set(this.outerStart)
    compress(state, w)
  }
}
