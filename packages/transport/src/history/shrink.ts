/**
 * A smaller history that still fails: first the operations invoked by the time the search got
 * stuck (the others played no part), then delta debugging: drop chunks of halving size while the rest stays
 * non-linearizable, and finally single units until no one can go. Operations are dropped by the
 * model's units (`Model.unitOf`: a grant with its release), so a smaller history fails only in a
 * way the whole one did. The result is 1-minimal: dropping any one of its units makes it
 * linearizable (unless the budget ran out first).
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

  const order = new Map(failing.map((o, i) => [o, i]))
  const flat = (units: readonly (readonly Operation<I, O>[])[]) =>
    units.flat().sort((a, b) => order.get(a)! - order.get(b)!)
  function* failsAll(units: readonly (readonly Operation<I, O>[])[]) {
    return yield* fails(flat(units))
  }

  // The search never reached a call after `stuckAt`, so without those units it fails alike.
  const all = unitsOf(model, failing)
  const early = all.filter((unit) => unit.some((o) => o.invokedAt <= stuckAt))
  let current = early.length < all.length && (yield* failsAll(early)) ? early : all

  for (let chunk = current.length >> 1; chunk > 1; chunk >>= 1) {
    for (let start = 0; start < current.length; ) {
      const candidate = [...current.slice(0, start), ...current.slice(start + chunk)]
      if (yield* failsAll(candidate)) current = candidate
      else start += chunk
    }
  }
  // Single units, until a whole pass drops none: a drop can make another one droppable.
  for (let changed = true; changed && !exhausted; ) {
    changed = false
    for (let i = current.length - 1; i >= 0; i--) {
      const candidate = current.filter((_, j) => j !== i)
      if (yield* failsAll(candidate)) {
        current = candidate
        changed = true
      }
    }
  }
  return { operations: flat(current), minimal: !exhausted }
}

/** The history's operations grouped by `model.unitOf`, in the order each unit first appears. */
function unitsOf<S, I, O>(
  model: Model<S, I, O>,
  operations: readonly Operation<I, O>[],
): Operation<I, O>[][] {
  const units: Operation<I, O>[][] = []
  const byName = new Map<string | number, Operation<I, O>[]>()
  for (const op of operations) {
    const name = model.unitOf?.(op.input, op.output)
    const unit = name === undefined ? undefined : byName.get(name)
    if (unit !== undefined) unit.push(op)
    else {
      const fresh = [op]
      units.push(fresh)
      if (name !== undefined) byName.set(name, fresh)
    }
  }
  return units
}
