/** Operations as lines a person reads: client, interval and what happened. */
import type { Model, Operation } from './types.js'

export function describeOperations<S, I, O>(
  model: Model<S, I, O>,
  operations: readonly Operation<I, O>[],
): string[] {
  return operations.map((o) => {
    const end = o.completedAt === undefined ? 'pending' : String(o.completedAt)
    const what = model.describe?.(o.input, o.output) ?? JSON.stringify([o.input, o.output])
    return `${String(o.client)} [${o.invokedAt}, ${end}] ${what}`
  })
}
