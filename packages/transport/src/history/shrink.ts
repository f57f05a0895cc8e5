/**
 * A smaller history that still fails: first the operations invoked by the time the search got
 * stuck (the others played no part), then delta debugging: drop chunks of halving size while the rest stays
 * non-linearizable, and finally single operations until no one can go. The result is 1-minimal:
 * dropping any one of its operations makes it linearizable (unless the budget ran out first).
 */
import type { StepBudget } from './budget.js'
import { searchLinearization } from './search.js'
import type { Model, Operation } from './types.js'

export function* shrinkHistory<S, I, O>(
  model: Model<S, I, O>,
  failing: readonly Operation<I, O>[],
  stuckAt: number,
  budget: StepBudget,
): Generator<void, { operations: Operation<I, O>[]; minimal: boolean }, void> {
  let exhausted = false
  function* fails(candidate: readonly Operation<I, O>[]): Generator<void, boolean, void> {
    if (exhausted || candidate.length === 0) return false
    const r = yield* searchLinearization(model, candidate, budget, true)
    if (r.verdict === 'unknown') exhausted = true
    return r.verdict === 'not-linearizable'
  }

  // The search never reached a call after `stuckAt`, so without those operations it fails alike.
  const early = failing.filter((o) => o.invokedAt <= stuckAt)
  let current = early.length < failing.length && (yield* fails(early)) ? early : [...failing]

  for (let chunk = current.length >> 1; chunk > 1; chunk >>= 1) {
    for (let start = 0; start < current.length; ) {
      const candidate = [...current.slice(0, start), ...current.slice(start + chunk)]
      if (yield* fails(candidate)) current = candidate
      else start += chunk
    }
  }
  // Single operations, until a whole pass drops none: a drop can make another one droppable.
  for (let changed = true; changed && !exhausted; ) {
    changed = false
    for (let i = current.length - 1; i >= 0; i--) {
      const candidate = current.filter((_, j) => j !== i)
      if (yield* fails(candidate)) {
        current = candidate
        changed = true
      }
    }
  }
  return { operations: current, minimal: !exhausted }
}
