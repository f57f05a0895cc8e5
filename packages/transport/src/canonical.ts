/**
 * Canonical keys of plain data: what protocol snapshots and the simulator's state fingerprint
 * are compared by. Equal data gives equal text whatever the order its objects' keys were made in;
 * anything that has no one plain meaning (a Map, a function, NaN) is refused, naming where it is.
 */
import { InvalidArgumentError } from './errors.js'

/**
 * A stable serialization of plain data (objects with keys sorted, arrays, strings, finite
 * numbers, booleans, null). Throws on a Map, a Set, a function, `undefined`, NaN or an
 * infinity, a class instance, or a cycle, naming its path (`snapshot.peers[2].lastSeen`).
 */
export function canonicalKey(value: unknown, root = 'value'): string {
  const out: string[] = []
  write(value, root, out, new Set())
  return out.join('')
}

function write(value: unknown, path: string, out: string[], open: Set<object>): void {
  if (value === null) {
    out.push('null')
    return
  }
  switch (typeof value) {
    case 'string':
      out.push(JSON.stringify(value))
      return
    case 'boolean':
      out.push(value ? 'true' : 'false')
      return
    case 'number':
      if (!Number.isFinite(value)) refuse(path, String(value))
      // -0 and 0 behave alike in every comparison a protocol makes: one key.
      out.push(String(value === 0 ? 0 : value))
      return
    case 'object':
      break
    default:
      refuse(path, typeof value)
  }
  const object = value as object
  if (open.has(object)) refuse(path, 'a cycle')
  if (Array.isArray(object)) {
    open.add(object)
    out.push('[')
    for (let i = 0; i < object.length; i++) {
      if (i > 0) out.push(',')
      write(object[i], `${path}[${i}]`, out, open)
    }
    out.push(']')
    open.delete(object)
    return
  }
  const proto = Object.getPrototypeOf(object)
  if (proto !== Object.prototype && proto !== null) {
    const name = object instanceof Map ? 'a Map' : object instanceof Set ? 'a Set' : undefined
    refuse(path, name ?? `an instance of ${proto?.constructor?.name ?? 'a class'}`)
  }
  open.add(object)
  out.push('{')
  const keys = Object.keys(object).sort()
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!
    if (i > 0) out.push(',')
    out.push(JSON.stringify(key), ':')
    write((object as Record<string, unknown>)[key], `${path}.${key}`, out, open)
  }
  out.push('}')
  open.delete(object)
}

function refuse(path: string, what: string): never {
  throw new InvalidArgumentError(
    `${path} is ${what}: a snapshot must be plain data (objects, arrays, strings, finite numbers, booleans, null); turn a Map or Set into a sorted array`,
  )
}

/**
 * A 64-bit hash of a canonical key, as 16 hex digits (two independent 32-bit FNV-1a style
 * lanes with a murmur finalizer). Storing hashes instead of keys is hash compaction: with n
 * states, two distinct ones collide with probability about n² / 2^65 (1e-8 at 600,000 states).
 */
export function hashKey(key: string): string {
  let a = 0x811c9dc5
  let b = 0x9747b28c
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i)
    a = Math.imul(a ^ c, 0x01000193)
    b = Math.imul(b ^ c, 0x5bd1e995)
    b ^= b >>> 15
  }
  return hex(fmix(a ^ key.length)) + hex(fmix(b))
}

function fmix(h: number): number {
  let x = h
  x ^= x >>> 16
  x = Math.imul(x, 0x85ebca6b)
  x ^= x >>> 13
  x = Math.imul(x, 0xc2b2ae35)
  x ^= x >>> 16
  return x >>> 0
}

const hex = (n: number) => n.toString(16).padStart(8, '0')

/** `hashKey(canonicalKey(value))`. */
export function stateHash(value: unknown, root = 'value'): string {
  return hashKey(canonicalKey(value, root))
}
