/** 32-bit hashes for model states and for the checker's memo of linearized sets. */

/** FNV-1a of a string. */
export function hashString(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

/** A well-spread 32-bit value of an integer (the murmur3 finalizer). */
export function mix32(x: number): number {
  let h = x | 0
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  return (h ^ (h >>> 16)) >>> 0
}

/** Any primitive value a model keeps: numbers, strings, booleans, null and undefined. */
export function hashValue(value: unknown): number {
  if (typeof value === 'number' && Number.isInteger(value) && Math.abs(value) < 2 ** 31)
    return mix32(value)
  return hashString(`${typeof value}:${String(value)}`)
}

/** Folds several hashes into one, order-sensitive. */
export function combineHashes(...hashes: number[]): number {
  let h = 0x9747b28c
  for (const x of hashes) h = mix32(h ^ Math.imul(x, 0x9e3779b1)) ^ (h >>> 7)
  return h >>> 0
}
