/**
 * A counter: `add` a delta, `read` the total. Operations may name a key: each key is its own
 * counter (P-compositionality). A lost update shows as a read below the adds that completed
 * before it.
 */
import { partitionBy } from '../check.js'
import { hashValue } from '../hash.js'
import type { Model } from '../types.js'

export type CounterInput =
  | { f: 'add'; delta: number; key?: string | number }
  | { f: 'read'; key?: string | number }

/** A read's output is the total read; an add's is not looked at. */
export type CounterOutput = number | undefined

export function counterModel(
  options: { initial?: number } = {},
): Model<number, CounterInput, CounterOutput> {
  const initial = options.initial ?? 0
  return {
    name: 'counter',
    init: () => initial,
    step(state, input, output) {
      if (input.f === 'add') return { ok: true, state: state + input.delta }
      return { ok: output === undefined || output === state, state }
    },
    equal: (a, b) => a === b,
    hash: hashValue,
    partition: partitionBy((input) => input.key),
    describe(input, output) {
      const key = input.key === undefined ? '' : `[${input.key}]`
      if (input.f === 'add') return `add${key}(${input.delta})`
      return `read${key} -> ${output === undefined ? '?' : output}`
    },
  }
}
