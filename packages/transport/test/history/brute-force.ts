/**
 * The definition, checked the slow way, for the property tests: try every order of the completed
 * operations and any subset of the pending ones that respects real time (a before b when a
 * completed strictly before b was invoked), stepping the model along each. No memo, no lists.
 */
import type { Model, Operation } from '@sd/transport/history'

export function bruteForceLinearizable<S, I, O>(
  model: Model<S, I, O>,
  history: readonly Operation<I, O>[],
): boolean {
  const n = history.length
  const mustFollow = history.map((b) =>
    history.flatMap((a, i) =>
      a.completedAt !== undefined && a.completedAt < b.invokedAt ? [i] : [],
    ),
  )
  const placed = new Array<boolean>(n).fill(false)
  const completedLeft = () =>
    history.filter((o, i) => !placed[i] && o.completedAt !== undefined).length
  const search = (state: S): boolean => {
    if (completedLeft() === 0) return true
    for (let i = 0; i < n; i++) {
      if (placed[i] || mustFollow[i]!.some((j) => !placed[j])) continue
      const o = history[i]!
      const r = model.step(state, o.input, o.completedAt === undefined ? undefined : o.output)
      if (!r.ok) continue
      placed[i] = true
      const found = search(r.state)
      placed[i] = false
      if (found) return true
    }
    return false
  }
  return search(model.init())
}
