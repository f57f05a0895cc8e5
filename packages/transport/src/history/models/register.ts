/**
 * A read/write register, with compare-and-set. Operations may name a key: each key is its own
 * register, checked on its own (P-compositionality). Values are compared with `Object.is`, so
 * keep them primitive (numbers, strings, booleans, null).
 */
import { partitionBy } from '../check.js'
import { hashValue } from '../hash.js'
import type { Model } from '../types.js'

export type RegisterKey = string | number

export type RegisterInput<V> =
  | { f: 'read'; key?: RegisterKey }
  | { f: 'write'; value: V; key?: RegisterKey }
  /** Sets `to` when the register holds `from`; its output says whether it did. */
  | { f: 'cas'; from: V; to: V; key?: RegisterKey }

/** A read's output is the value read, a cas's whether it swapped; a write's is not looked at. */
export type RegisterOutput<V> = V | boolean | undefined

export function registerModel<V = number | null>(
  options: { initial?: V } = {},
): Model<V, RegisterInput<V>, RegisterOutput<V>> {
  const initial = (options.initial ?? null) as V
  return {
    name: 'register',
    init: () => initial,
    step(state, input, output) {
      switch (input.f) {
        case 'read':
          return { ok: output === undefined || Object.is(output, state), state }
        case 'write':
          return { ok: true, state: input.value }
        case 'cas': {
          const matches = Object.is(state, input.from)
          // Pending: it swapped if it could (had it failed, it had no effect, which "never" covers).
          if (output === undefined) return { ok: matches, state: input.to }
          if (output === true) return { ok: matches, state: input.to }
          return { ok: output === false && !matches, state }
        }
      }
    },
    equal: Object.is,
    hash: hashValue,
    partition: partitionBy((input) => input.key),
    // A write and the reads of its value stand together when shrinking: a read alone would read
    // a value never written, which says nothing of the whole history.
    unitOf(input, output) {
      if (input.f === 'write') return valueUnit(input.value)
      if (input.f === 'read' && output !== undefined) return valueUnit(output as V)
      return undefined
    },
    describe(input, output) {
      const key = input.key === undefined ? '' : `[${input.key}]`
      const out = output === undefined ? '?' : String(output)
      if (input.f === 'read') return `read${key} -> ${out}`
      if (input.f === 'write') return `write${key}(${String(input.value)})`
      return `cas${key}(${String(input.from)}, ${String(input.to)}) -> ${out}`
    },
  }
}

/** Values as unit names: `1` and `'1'` kept apart. */
function valueUnit(value: unknown): string {
  return `${typeof value}:${String(value)}`
}
