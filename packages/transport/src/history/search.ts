/**
 * Wing & Gong's search for a linearization, with Lowe's memo, as Porcupine runs it. The history
 * is a list of call and return entries in time order. The search walks it from the front: a call
 * may be linearized now when the model accepts it in the current state (and the configuration is
 * new); it is then lifted out of the list with its return, and the walk starts again from the
 * front. Reaching a return means every order tried so far leaves that operation unlinearized
 * while it had already returned: undo the last choice and try the next call after it.
 *
 * A pending operation (no completion) has no return entry, so nothing forces it in: it may be
 * linearized anywhere after its call, or never. The search succeeds when every completed
 * operation is linearized.
 */
import type { StepBudget } from './budget.js'
import { ConfigurationMemo, LinearizedSet } from './memo.js'
import type { Model, Operation } from './types.js'

const PAUSE_EVERY = 16_384

export type SearchResult =
  | { verdict: 'linearizable' }
  /**
   * `longest`: indices of the operations of the longest legal order found. `stuck`: the operation
   * of the latest return the search reached (no legal order placed it before its completion);
   * operations invoked after that completion played no part in the failure.
   */
  | { verdict: 'not-linearizable'; longest: number[]; stuck: number }
  | { verdict: 'unknown' }

/** Entry numbers: operation i has its call at 2i and its return at 2i + 1; the head is 2n. */
function timeOrderedEntries(operations: readonly Operation<unknown, unknown>[]): number[] {
  const entries: number[] = []
  operations.forEach((o, i) => {
    entries.push(2 * i)
    if (o.completedAt !== undefined) entries.push(2 * i + 1)
  })
  const time = (e: number) => {
    const o = operations[e >> 1]!
    return e & 1 ? o.completedAt! : o.invokedAt
  }
  // At equal times calls come first: operations that touch the same instant overlap.
  return entries.sort((a, b) => time(a) - time(b) || (a & 1) - (b & 1) || a - b)
}

/**
 * A generator so that an asynchronous check can give the event loop a turn now and then (it
 * yields every `PAUSE_EVERY` steps); a synchronous one just runs it to the end.
 */
export function* searchLinearization<S, I, O>(
  model: Model<S, I, O>,
  operations: readonly Operation<I, O>[],
  budget: StepBudget,
  memoize: boolean,
): Generator<void, SearchResult, void> {
  const n = operations.length
  const head = 2 * n
  const next = new Int32Array(2 * n + 1).fill(-1)
  const prev = new Int32Array(2 * n + 1).fill(-1)
  let last = head
  for (const e of timeOrderedEntries(operations)) {
    next[last] = e
    prev[e] = last
    last = e
  }
  const completed = operations.map((o) => o.completedAt !== undefined)
  const unlink = (e: number) => {
    next[prev[e]!] = next[e]!
    if (next[e]! >= 0) prev[next[e]!] = prev[e]!
  }
  // Dancing links: a node keeps its neighbours while out, so undoing in reverse order restores it.
  const relink = (e: number) => {
    next[prev[e]!] = e
    if (next[e]! >= 0) prev[next[e]!] = e
  }

  const memo = memoize ? new ConfigurationMemo(model.equal, model.hash) : undefined
  const set = new LinearizedSet(completed)
  const chosen: number[] = []
  const statesBefore: S[] = []
  let longest: number[] = []
  let state = model.init()
  let remaining = completed.filter(Boolean).length
  let entry = next[head]!
  let stuck = -1

  while (remaining > 0) {
    if ((entry & 1) === 0) {
      const i = entry >> 1
      const o = operations[i]!
      if (!budget.take()) return { verdict: 'unknown' }
      if (budget.used % PAUSE_EVERY === 0) yield
      const result = model.step(state, o.input, completed[i] ? o.output : undefined)
      // A pending operation that leaves the state as it is (a read) gains nothing: every order
      // after it is open without it, from here, where the search is anyway.
      const useless = !completed[i] && result.ok && model.equal(result.state, state)
      if (result.ok && !useless) {
        set.add(i)
        if (memo === undefined || !memo.failed(set, result.state)) {
          chosen.push(i)
          statesBefore.push(state)
          state = result.state
          unlink(entry)
          if (completed[i]) {
            unlink(entry + 1)
            remaining--
          }
          entry = next[head]!
          continue
        }
        set.remove(i)
      }
      entry = next[entry]!
    } else {
      if (chosen.length > longest.length) longest = chosen.slice()
      const at = entry >> 1
      if (
        entry >= 0 &&
        (stuck < 0 || operations[at]!.completedAt! > operations[stuck]!.completedAt!)
      )
        stuck = at
      if (chosen.length === 0) return { verdict: 'not-linearizable', longest, stuck }
      const i = chosen.pop()!
      memo?.add(set, state) // explored in full from here, in vain
      state = statesBefore.pop()!
      set.remove(i)
      if (completed[i]) {
        relink(2 * i + 1)
        remaining++
      }
      relink(2 * i)
      entry = next[2 * i]!
    }
  }
  return { verdict: 'linearizable' }
}
