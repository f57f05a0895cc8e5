/** A seeded source of uniform numbers in [0, 1). */
export interface Random {
  next(): number
  /** Integer in [min, max]. */
  int(min: number, max: number): number
}

/** Folds a number or a string into a 32-bit seed. */
export function seedToInt(seed: number | string): number {
  const text = String(seed)
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

/** A `Random` whose position can be saved and gone back to (the simulator's checkpoints). */
export interface SeekableRandom extends Random {
  /** Where the stream stands: `load` of it draws the same numbers from there again. */
  save(): readonly number[]
  load(state: readonly number[]): void
}

/** sfc32, seeded through splitmix32: fast, small state, good enough for simulation. */
export function createRandom(seed: number | string): SeekableRandom {
  let s = seedToInt(seed)
  const split = () => {
    s = (s + 0x9e3779b9) | 0
    let z = s
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b)
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35)
    return (z ^ (z >>> 16)) >>> 0
  }
  let a = split()
  let b = split()
  let c = split()
  let d = split()
  const next = () => {
    const t = (((a + b) | 0) + d) | 0
    d = (d + 1) | 0
    a = b ^ (b >>> 9)
    b = (c + (c << 3)) | 0
    c = (c << 21) | (c >>> 11)
    c = (c + t) | 0
    return (t >>> 0) / 4294967296
  }
  for (let i = 0; i < 12; i++) next()
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    save: () => [a, b, c, d],
    load: (state) => {
      ;[a, b, c, d] = state as [number, number, number, number]
    },
  }
}
