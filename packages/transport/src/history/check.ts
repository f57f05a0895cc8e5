/**
 * `checkHistory` (and `checkHistoryAsync`): is a history linearizable with respect to a model? Splits it into the model's
 * parts (P-compositionality), searches each (search.ts) and, for the first part that fails, finds
 * a minimal failing sub-history (shrink.ts). Bounded: past `maxSteps`, or once `signal` is
 * aborted, the answer is `unknown`.
 */
import { InvalidArgumentError } from '../errors.js'
import { StepBudget } from './budget.js'
import { searchLinearization } from './search.js'
import { shrinkHistory } from './shrink.js'
import type { CheckOptions, CheckResult, Model, Operation } from './types.js'

const DEFAULT_MAX_STEPS = 10_000_000

export function checkHistory<S, I, O>(
  model: Model<S, I, O>,
  history: readonly Operation<I, O>[],
  options: CheckOptions = {},
): CheckResult<I, O> {
  const run = checking(model, history, options)
  for (let r = run.next(); ; r = run.next()) if (r.done) return r.value
}

/**
 * The same check, giving the event loop a turn every few thousand steps, so that a signal a
 * timer aborts (`AbortSignal.timeout(ms)`) stops it. `pause` is how it waits (default: a
 * zero-delay timer).
 */
export async function checkHistoryAsync<S, I, O>(
  model: Model<S, I, O>,
  history: readonly Operation<I, O>[],
  options: CheckOptions & { pause?: () => Promise<void> } = {},
): Promise<CheckResult<I, O>> {
  const pause = options.pause ?? (() => new Promise<void>((resolve) => setTimeout(resolve, 0)))
  const run = checking(model, history, options)
  for (let r = run.next(); ; r = run.next()) {
    if (r.done) return r.value
    await pause()
  }
}

function* checking<S, I, O>(
  model: Model<S, I, O>,
  history: readonly Operation<I, O>[],
  options: CheckOptions,
): Generator<void, CheckResult<I, O>, void> {
  validateHistory(history)
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS
  if (!(maxSteps >= 0))
    throw new InvalidArgumentError(`checkHistory: maxSteps must be >= 0, got ${maxSteps}`)
  const budget = new StepBudget(maxSteps, options.signal)
  const parts =
    options.partition !== false && model.partition ? model.partition(history) : [[...history]]
  for (const part of parts) {
    const found = yield* searchLinearization(model, part, budget, options.memoize !== false)
    if (found.verdict === 'unknown')
      return {
        verdict: 'unknown',
        steps: budget.used,
        parts: parts.length,
        reason: budget.stopped!,
      }
    if (found.verdict === 'not-linearizable') {
      const stuck = part[found.stuck]!
      const shrunk =
        options.shrink === false
          ? { operations: [...part], minimal: false }
          : yield* shrinkHistory(model, part, stuck.completedAt!, budget)
      return {
        verdict: 'not-linearizable',
        steps: budget.used,
        parts: parts.length,
        part,
        counterexample: shrunk.operations,
        minimal: shrunk.minimal,
        longestPrefix: found.longest.map((i) => part[i]!),
        stuck,
      }
    }
  }
  return { verdict: 'linearizable', steps: budget.used, parts: parts.length }
}

function validateHistory(history: readonly Operation<unknown, unknown>[]): void {
  for (const [i, o] of history.entries()) {
    if (!Number.isFinite(o.invokedAt))
      throw new InvalidArgumentError(`checkHistory: operation ${i} has no finite invokedAt`)
    if (o.completedAt !== undefined && !(o.completedAt >= o.invokedAt))
      throw new InvalidArgumentError(
        `checkHistory: operation ${i} completes (${o.completedAt}) before it is invoked (${o.invokedAt})`,
      )
  }
}

/** Groups operations by a key, keeping their order: a ready-made `partition` for keyed models. */
export function partitionBy<I, O>(
  keyOf: (input: I) => unknown,
): (operations: readonly Operation<I, O>[]) => Operation<I, O>[][] {
  return (operations) => {
    const parts = new Map<unknown, Operation<I, O>[]>()
    for (const o of operations) {
      const key = keyOf(o.input)
      const part = parts.get(key)
      if (part === undefined) parts.set(key, [o])
      else part.push(o)
    }
    return [...parts.values()]
  }
}
