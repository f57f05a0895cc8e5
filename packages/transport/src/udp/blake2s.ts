/**
 * BLAKE2s-256 (RFC 7693) in JavaScript, keyed (a MAC) and plain, without allocation per call.
 *
 * Why here: a keyed BLAKE2s is a MAC by design (RFC 7693 section 2.5; WireGuard uses it), and it
 * needs no second pass as HMAC does: with the key block compressed once, a datagram of up to 64
 * signed bytes costs one compression and one of up to 128 bytes two, where HMAC-SHA256 costs
 * three. Each compression is 10 rounds of 8 G mixes on 32-bit words.
 */

const IV = new Uint32Array([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
])

/** The message word each G mix of each round reads (RFC 7693, table SIGMA), flattened. */
const SIGMA = new Uint8Array([
  0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11,
  7, 5, 3, 11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4, 7, 9, 3, 1, 13, 12, 11, 14, 2, 6,
  5, 10, 4, 0, 15, 8, 9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13, 2, 12, 6, 10, 0, 11, 8,
  3, 4, 13, 7, 5, 15, 14, 1, 9, 12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11, 13, 11, 7, 14,
  12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10, 6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5, 10,
  2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0,
])

export const BLAKE2S_BLOCK_BYTES = 64
export const BLAKE2S_OUT_BYTES = 32
/** The longest key keyed BLAKE2s takes. */
export const BLAKE2S_MAX_KEY_BYTES = 32

const m = new Uint32Array(16)

/**
 * Compresses the 64-byte block at `block[at]` into the state `h`; `t` is the count of bytes hashed
 * so far including this block (inputs here stay far below 2^32 bytes, so its high word is 0).
 */
function compress(h: Uint32Array, block: Uint8Array, at: number, t: number, last: boolean): void {
  for (let i = 0; i < 16; i++) {
    const j = at + 4 * i
    m[i] = block[j]! | (block[j + 1]! << 8) | (block[j + 2]! << 16) | (block[j + 3]! << 24)
  }
  let v0 = h[0]!
  let v1 = h[1]!
  let v2 = h[2]!
  let v3 = h[3]!
  let v4 = h[4]!
  let v5 = h[5]!
  let v6 = h[6]!
  let v7 = h[7]!
  let v8 = IV[0]!
  let v9 = IV[1]!
  let v10 = IV[2]!
  let v11 = IV[3]!
  let v12 = IV[4]! ^ t
  let v13 = IV[5]!
  let v14 = last ? ~IV[6]! : IV[6]!
  let v15 = IV[7]!
  // G(a, b, c, d, x, y): a += b + x; d = (d ^ a) >>> 16; c += d; b = (b ^ c) >>> 12;
  // a += b + y; d = (d ^ a) >>> 8; c += d; b = (b ^ c) >>> 7 (rotations right), written out.
  for (let s = 0; s < 160; s += 16) {
    v0 = (v0 + v4 + m[SIGMA[s]!]!) | 0
    v12 ^= v0
    v12 = (v12 >>> 16) | (v12 << 16)
    v8 = (v8 + v12) | 0
    v4 ^= v8
    v4 = (v4 >>> 12) | (v4 << 20)
    v0 = (v0 + v4 + m[SIGMA[s + 1]!]!) | 0
    v12 ^= v0
    v12 = (v12 >>> 8) | (v12 << 24)
    v8 = (v8 + v12) | 0
    v4 ^= v8
    v4 = (v4 >>> 7) | (v4 << 25)

    v1 = (v1 + v5 + m[SIGMA[s + 2]!]!) | 0
    v13 ^= v1
    v13 = (v13 >>> 16) | (v13 << 16)
    v9 = (v9 + v13) | 0
    v5 ^= v9
    v5 = (v5 >>> 12) | (v5 << 20)
    v1 = (v1 + v5 + m[SIGMA[s + 3]!]!) | 0
    v13 ^= v1
    v13 = (v13 >>> 8) | (v13 << 24)
    v9 = (v9 + v13) | 0
    v5 ^= v9
    v5 = (v5 >>> 7) | (v5 << 25)

    v2 = (v2 + v6 + m[SIGMA[s + 4]!]!) | 0
    v14 ^= v2
    v14 = (v14 >>> 16) | (v14 << 16)
    v10 = (v10 + v14) | 0
    v6 ^= v10
    v6 = (v6 >>> 12) | (v6 << 20)
    v2 = (v2 + v6 + m[SIGMA[s + 5]!]!) | 0
    v14 ^= v2
    v14 = (v14 >>> 8) | (v14 << 24)
    v10 = (v10 + v14) | 0
    v6 ^= v10
    v6 = (v6 >>> 7) | (v6 << 25)

    v3 = (v3 + v7 + m[SIGMA[s + 6]!]!) | 0
    v15 ^= v3
    v15 = (v15 >>> 16) | (v15 << 16)
    v11 = (v11 + v15) | 0
    v7 ^= v11
    v7 = (v7 >>> 12) | (v7 << 20)
    v3 = (v3 + v7 + m[SIGMA[s + 7]!]!) | 0
    v15 ^= v3
    v15 = (v15 >>> 8) | (v15 << 24)
    v11 = (v11 + v15) | 0
    v7 ^= v11
    v7 = (v7 >>> 7) | (v7 << 25)

    v0 = (v0 + v5 + m[SIGMA[s + 8]!]!) | 0
    v15 ^= v0
    v15 = (v15 >>> 16) | (v15 << 16)
    v10 = (v10 + v15) | 0
    v5 ^= v10
    v5 = (v5 >>> 12) | (v5 << 20)
    v0 = (v0 + v5 + m[SIGMA[s + 9]!]!) | 0
    v15 ^= v0
    v15 = (v15 >>> 8) | (v15 << 24)
    v10 = (v10 + v15) | 0
    v5 ^= v10
    v5 = (v5 >>> 7) | (v5 << 25)

    v1 = (v1 + v6 + m[SIGMA[s + 10]!]!) | 0
    v12 ^= v1
    v12 = (v12 >>> 16) | (v12 << 16)
    v11 = (v11 + v12) | 0
    v6 ^= v11
    v6 = (v6 >>> 12) | (v6 << 20)
    v1 = (v1 + v6 + m[SIGMA[s + 11]!]!) | 0
    v12 ^= v1
    v12 = (v12 >>> 8) | (v12 << 24)
    v11 = (v11 + v12) | 0
    v6 ^= v11
    v6 = (v6 >>> 7) | (v6 << 25)

    v2 = (v2 + v7 + m[SIGMA[s + 12]!]!) | 0
    v13 ^= v2
    v13 = (v13 >>> 16) | (v13 << 16)
    v8 = (v8 + v13) | 0
    v7 ^= v8
    v7 = (v7 >>> 12) | (v7 << 20)
    v2 = (v2 + v7 + m[SIGMA[s + 13]!]!) | 0
    v13 ^= v2
    v13 = (v13 >>> 8) | (v13 << 24)
    v8 = (v8 + v13) | 0
    v7 ^= v8
    v7 = (v7 >>> 7) | (v7 << 25)

    v3 = (v3 + v4 + m[SIGMA[s + 14]!]!) | 0
    v14 ^= v3
    v14 = (v14 >>> 16) | (v14 << 16)
    v9 = (v9 + v14) | 0
    v4 ^= v9
    v4 = (v4 >>> 12) | (v4 << 20)
    v3 = (v3 + v4 + m[SIGMA[s + 15]!]!) | 0
    v14 ^= v3
    v14 = (v14 >>> 8) | (v14 << 24)
    v9 = (v9 + v14) | 0
    v4 ^= v9
    v4 = (v4 >>> 7) | (v4 << 25)
  }
  h[0] = h[0]! ^ v0 ^ v8
  h[1] = h[1]! ^ v1 ^ v9
  h[2] = h[2]! ^ v2 ^ v10
  h[3] = h[3]! ^ v3 ^ v11
  h[4] = h[4]! ^ v4 ^ v12
  h[5] = h[5]! ^ v5 ^ v13
  h[6] = h[6]! ^ v6 ^ v14
  h[7] = h[7]! ^ v7 ^ v15
}

const padded = new Uint8Array(BLAKE2S_BLOCK_BYTES)

/**
 * Hashes `data[start, end)` into `h`, which holds the state after `done` bytes (0, or 64 after a
 * key block): whole blocks, then the last one zero-padded. The last block is never empty unless
 * there was no data at all (RFC 7693: the final block is the last one with data).
 */
function absorb(h: Uint32Array, done: number, data: Uint8Array, start: number, end: number): void {
  let at = start
  let t = done
  while (end - at > BLAKE2S_BLOCK_BYTES) {
    t += BLAKE2S_BLOCK_BYTES
    compress(h, data, at, t, false)
    at += BLAKE2S_BLOCK_BYTES
  }
  padded.fill(0)
  padded.set(data.subarray(at, end))
  compress(h, padded, 0, t + (end - at), true)
}

function writeWords(h: Uint32Array, out: Uint8Array, at: number): void {
  for (let i = 0; i < 8; i++) {
    const w = h[i]!
    const j = at + 4 * i
    out[j] = w
    out[j + 1] = w >>> 8
    out[j + 2] = w >>> 16
    out[j + 3] = w >>> 24
  }
}

/** The parameter block's first word: digest length, key length, fanout 1, depth 1. */
const paramWord = (keyBytes: number) => 0x01010000 ^ (keyBytes << 8) ^ BLAKE2S_OUT_BYTES

/** Plain (unkeyed) BLAKE2s-256 of `data`. */
export function blake2s(data: Uint8Array): Uint8Array {
  const h = IV.slice()
  h[0] = h[0]! ^ paramWord(0)
  absorb(h, 0, data, 0, data.length)
  const out = new Uint8Array(BLAKE2S_OUT_BYTES)
  writeWords(h, out, 0)
  return out
}

/** Keyed BLAKE2s-256: a MAC into a buffer, and a check that compares in constant time. */
export class Blake2sMac {
  /** The state after the key block, computed once. */
  private readonly keyed = new Uint32Array(8)
  private readonly h = new Uint32Array(8)
  private readonly scratch = new Uint8Array(BLAKE2S_OUT_BYTES)

  /** `key`: 1 to 32 bytes (a longer secret must be reduced first, see auth.ts). */
  constructor(key: Uint8Array) {
    if (key.length < 1 || key.length > BLAKE2S_MAX_KEY_BYTES) {
      throw new RangeError(`a BLAKE2s key is 1 to 32 bytes, got ${key.length}`)
    }
    this.keyed.set(IV)
    this.keyed[0] = this.keyed[0]! ^ paramWord(key.length)
    const block = new Uint8Array(BLAKE2S_BLOCK_BYTES)
    block.set(key)
    compress(this.keyed, block, 0, BLAKE2S_BLOCK_BYTES, false)
  }

  /** MAC of `data[start, end)` (at least one byte) written at `out[at]`. */
  mac(data: Uint8Array, start: number, end: number, out: Uint8Array, at: number): void {
    if (end <= start) throw new RangeError('keyed BLAKE2s here signs at least one byte')
    const h = this.h
    h.set(this.keyed)
    absorb(h, BLAKE2S_BLOCK_BYTES, data, start, end)
    writeWords(h, out, at)
  }

  verify(data: Uint8Array, start: number, end: number, mac: Uint8Array, macAt: number): boolean {
    if (end <= start || macAt + BLAKE2S_OUT_BYTES > mac.length) return false
    this.mac(data, start, end, this.scratch, 0)
    let diff = 0
    for (let i = 0; i < BLAKE2S_OUT_BYTES; i++) diff |= this.scratch[i]! ^ mac[macAt + i]!
    return diff === 0
  }
}
