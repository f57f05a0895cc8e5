/**
 * A deadlock detector to feed by hand: tell it who waits for whom, and it reports the cycle a new
 * wait closes, at once (incremental detection: it searches only from the new wait's target), with
 * the victim its rule picks. Abort the victim in your application, then call `removeProcess`.
 */
import { InvalidArgumentError } from '@sd/transport'
import type { ProcessId } from '../graph/types.js'
import { WaitForGraph } from '../graph/wait-for-graph.js'

/** A cycle found, and the process to abort to break it. */
export interface DeadlockReport<Id extends ProcessId = ProcessId> {
  type: 'deadlock'
  cycle: Id[]
  victim: Id
}

/**
 * Who is aborted: `'requester'` (the default) the process whose new wait closed the cycle, as many
 * databases do, since it has nothing granted yet for that request; `'highest-id'`; or a function.
 */
export type VictimRule<Id extends ProcessId> =
  | 'requester'
  | 'highest-id'
  | ((cycle: readonly Id[]) => Id)

export interface DeadlockDetectorOptions<Id extends ProcessId> {
  victim?: VictimRule<Id>
  /** Told of every deadlock found (also returned by `addWait`). */
  onDeadlock?: (report: DeadlockReport<Id>) => void
}

export interface DeadlockDetector<Id extends ProcessId = ProcessId> {
  /** `from` now waits for `to`; the deadlock this closes, if it closes one. */
  addWait(from: Id, to: Id): DeadlockReport<Id> | undefined
  removeWait(from: Id, to: Id): void
  /** A process finished or was aborted: it waits for nobody, and nobody waits for it. */
  removeProcess(id: Id): void
  /** Every process deadlocked now (on a cycle or waiting for one), in the AND model. */
  deadlocked(): Id[]
  /** Subscribes to deadlocks; returns the unsubscribe function. */
  onDeadlock(listener: (report: DeadlockReport<Id>) => void): () => void
  readonly graph: WaitForGraph<Id>
}

export function createDeadlockDetector<Id extends ProcessId = ProcessId>(
  options: DeadlockDetectorOptions<Id> = {},
): DeadlockDetector<Id> {
  const rule = options.victim ?? 'requester'
  if (typeof rule !== 'function' && rule !== 'requester' && rule !== 'highest-id')
    throw new InvalidArgumentError(
      `victim must be 'requester', 'highest-id' or a function, got ${String(rule)}`,
    )
  const graph = new WaitForGraph<Id>()
  const listeners = new Set<(report: DeadlockReport<Id>) => void>()
  if (options.onDeadlock) listeners.add(options.onDeadlock)

  const pick = (cycle: Id[]): Id => {
    if (typeof rule === 'function') {
      const victim = rule(cycle)
      if (!cycle.includes(victim))
        throw new InvalidArgumentError(
          `the victim rule chose ${String(victim)}, which is not on the cycle`,
        )
      return victim
    }
    if (rule === 'requester') return cycle[0]!
    let best = cycle[0]!
    for (const p of cycle) if (higher(p, best)) best = p
    return best
  }

  return {
    graph,
    addWait(from, to) {
      const cycle = graph.addWaitDetect(from, to)
      if (cycle === undefined) return undefined
      const report: DeadlockReport<Id> = { type: 'deadlock', cycle, victim: pick(cycle) }
      for (const listener of listeners) listener(report)
      return report
    },
    removeWait(from, to) {
      graph.removeWait(from, to)
    },
    removeProcess(id) {
      graph.removeProcess(id)
    },
    deadlocked: () => graph.deadlockedProcesses(),
    onDeadlock(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
}

function higher(a: ProcessId, b: ProcessId): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a > b
  return String(a) > String(b)
}
