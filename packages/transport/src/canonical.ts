/**
 * Canonical keys of plain data: what protocol snapshots and the simulator's state fingerprint
 * are compared by. Equal data gives equal text whatever the order its objects' keys were made in;
 * anything that has no one plain meaning (a Map, a function, NaN) is refused, naming where it is.
 */
import { InvalidArgumentError } from './errors.js'
import { type Hash64, hashText } from './hash64.js'
import { byCodeUnit, sortSmall } from './sort-small.js'

/**
 * A stable serialization of plain data (objects with keys sorted, arrays, strings, finite
 * numbers, booleans, null). Throws on a Map, a Set, a function, `undefined`, NaN or an
 * infinity, a class instance, or a cycle, naming its path (`snapshot.peers[2].lastSeen`).
 */
export function canonicalKey(value: unknown, root = 'value'): string {
  // Plain data whose objects have their keys in order already (most snapshots): `JSON.stringify`
  // writes the same text, natively, in one flat string.
  if (inOrder(value, 0)) return JSON.stringify(value)
  try {
    return writeFast(value, 0)
  } catch (error) {
    if (error !== REFUSED) throw error
    // Written again, slowly, to say where: the path and the cycle check cost on every key.
    return write(value, [root], new Set())
  }
}

/**
 * Canonical text written already (a part of a key that is cached): `canonicalKey` puts it in as
 * it is. Only the simulator's fingerprint makes these; a snapshot never holds one.
 */
export class CanonicalText {
  protected written: string | undefined
  protected hashed: Hash64 | undefined
  /** @param text the text; a subclass that writes it when asked passes none */
  constructor(text?: string) {
    this.written = text
  }

  get text(): string {
    this.written ??= this.write()
    return this.written
  }

  /** A 64-bit hash of the text (here `hashText(text)`), computed once. */
  get hash(): Hash64 {
    this.hashed ??= hashText(this.text)
    return this.hashed
  }

  /** Writes the text when it was not given. */
  protected write(): string {
    throw new Error('CanonicalText: no text')
  }
}

function ascending(keys: readonly string[]): boolean {
  for (let i = 1; i < keys.length; i++) if (keys[i - 1]! > keys[i]!) return false
  return true
}

/**
 * Whether `JSON.stringify(value)` is the canonical text: plain data only (as `writeFast` takes,
 * no `CanonicalText`, no array hole, no `toJSON`), each object's keys ascending as they are.
 */
function inOrder(value: unknown, depth: number): boolean {
  if (value === null) return true
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true
    case 'number':
      return Number.isFinite(value)
    case 'object':
      break
    default:
      return false
  }
  if (depth > MAX_DEPTH) return false
  if (Array.isArray(value)) {
    if ('toJSON' in value) return false
    for (let i = 0; i < value.length; i++)
      if (!(i in value) || !inOrder(value[i], depth + 1)) return false
    return true
  }
  const proto = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) return false
  const keys = Object.keys(value)
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!
    if (i > 0 && !(keys[i - 1]! < key)) return false
    if (key === 'toJSON' || !inOrder((value as Record<string, unknown>)[key], depth + 1))
      return false
  }
  return true
}

/** Thrown by `writeFast` for anything `write` refuses (or a nesting this deep: a cycle?). */
const REFUSED = Symbol('refused')
const MAX_DEPTH = 200

function writeFast(value: unknown, depth: number): string {
  if (value === null) return 'null'
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value)
    case 'boolean':
      return value ? 'true' : 'false'
    case 'number':
      if (!Number.isFinite(value)) throw REFUSED
      return value === 0 ? '0' : String(value)
    case 'object':
      break
    default:
      throw REFUSED
  }
  if (depth > MAX_DEPTH) throw REFUSED
  if (Array.isArray(value)) {
    const n = value.length
    if (n === 0) return '[]'
    let out = `[${writeFast(value[0], depth + 1)}`
    for (let i = 1; i < n; i++) out += `,${writeFast(value[i], depth + 1)}`
    return `${out}]`
  }
  const proto = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) {
    if (value instanceof CanonicalText) return value.text
    throw REFUSED
  }
  const keys = Object.keys(value)
  // Objects are mostly built with their keys in order already: sorting allocates.
  if (!ascending(keys)) sortSmall(keys, byCodeUnit)
  let out = '{'
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!
    if (i > 0) out += ','
    out += `${JSON.stringify(key)}:${writeFast((value as Record<string, unknown>)[key], depth + 1)}`
  }
  return `${out}}`
}

function write(value: unknown, path: Array<string | number>, open: Set<object>): string {
  if (value === null) return 'null'
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value)
    case 'boolean':
      return value ? 'true' : 'false'
    case 'number':
      if (!Number.isFinite(value)) refuse(path, String(value))
      // -0 and 0 behave alike in every comparison a protocol makes: one key.
      return value === 0 ? '0' : String(value)
    case 'object':
      break
    default:
      refuse(path, typeof value)
  }
  const object = value as object
  if (open.has(object)) refuse(path, 'a cycle')
  if (Array.isArray(object)) {
    open.add(object)
    let out = '['
    for (let i = 0; i < object.length; i++) {
      path.push(i)
      out += (i > 0 ? ',' : '') + write(object[i], path, open)
      path.pop()
    }
    open.delete(object)
    return `${out}]`
  }
  const proto = Object.getPrototypeOf(object)
  if (object instanceof CanonicalText) return object.text
  if (proto !== Object.prototype && proto !== null) {
    const name = object instanceof Map ? 'a Map' : object instanceof Set ? 'a Set' : undefined
    refuse(path, name ?? `an instance of ${proto?.constructor?.name ?? 'a class'}`)
  }
  open.add(object)
  let out = '{'
  const keys = Object.keys(object).sort()
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!
    path.push(key)
    out += `${i > 0 ? ',' : ''}${JSON.stringify(key)}:${write((object as Record<string, unknown>)[key], path, open)}`
    path.pop()
  }
  open.delete(object)
  return `${out}}`
}

function refuse(path: ReadonlyArray<string | number>, what: string): never {
  const where = path
    .map((p, i) => (i === 0 ? p : typeof p === 'number' ? `[${p}]` : `.${p}`))
    .join('')
  throw new InvalidArgumentError(
    `${where} is ${what}: a snapshot must be plain data (objects, arrays, strings, finite numbers, booleans, null); turn a Map or Set into a sorted array`,
  )
}

/**
 * A 64-bit hash of a canonical key, as 16 hex digits (two independent 32-bit FNV-1a style
 * lanes with a murmur finalizer). Storing hashes instead of keys is hash compaction: with n
 * states, two distinct ones collide with probability about n² / 2^65 (1e-8 at 600,000 states).
 */
export function hashKey(key: string): string {
  const { hi, lo } = hashText(key)
  return hex(hi) + hex(lo)
}

const hex = (n: number) => n.toString(16).padStart(8, '0')

/** `hashKey(canonicalKey(value))`. */
export function stateHash(value: unknown, root = 'value'): string {
  return hashKey(canonicalKey(value, root))
}
