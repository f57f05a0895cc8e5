/**
 * C2 and C3 for an ample set (see `por.ts`), checked by trying each of its choices once from the
 * state: a choice is visible when it emits an event the invariant reads (`reads.events`); the
 * set fails the cycle proviso when a choice leads to a state on the search stack (then what it
 * leaves out could be put off forever round the cycle). A choice's effect on its own node is the
 * same in every state reached by choices independent of it (other nodes' deliveries leave its
 * node, its message and virtual time as they are), so trying it here decides for all of them.
 */
import type { NodeId } from '../ids.js'
import type { Execution, ExecutionCheckpoint } from './execution.js'
import type { Token } from './token.js'
import type { Reads } from './types.js'

export class Visibility {
  readonly nodes: ReadonlySet<string>
  private readonly watched: (event: unknown, node: NodeId) => boolean

  constructor(reads: Reads) {
    this.nodes = new Set((reads.nodes ?? []).map(String))
    this.watched =
      reads.events === undefined ? () => false : (event, node) => reads.events!(event, node)
  }

  /** Whether events from index `from` on include one the invariant reads. */
  emitsWatched(exec: Execution, from: number): boolean {
    for (let i = from; i < exec.events.length; i++) {
      const { event, node } = exec.events[i]!
      if (this.watched(event, node)) return true
    }
    return false
  }
}

/** How the caller gets a child state: a fresh copy at the state, and the child's hash on the stack. */
export interface Probe {
  /** An execution at the state (a restore of `saved`, or a replay of the prefix). */
  at(saved: ExecutionCheckpoint | undefined): Execution
  onStack(child: Execution): boolean
  /** Counts a step the check took. */
  stepped(): void
}

/** Whether the candidate keeps C2 (no visible choice) and C3 (no choice back onto the stack). */
export function ampleHolds(
  exec: Execution,
  candidate: readonly Token[],
  visibility: Visibility,
  probe: Probe,
): boolean {
  const saved = exec.save()
  const events = exec.events.length
  let ok = true
  for (const token of candidate) {
    const child = probe.at(saved)
    child.step(token)
    probe.stepped()
    // A broken invariant is a visible change: let the full expansion find and report it.
    if (child.violation !== undefined || visibility.emitsWatched(child, events)) ok = false
    else if (probe.onStack(child)) ok = false
    if (!ok) break
  }
  if (saved !== undefined) exec.load(saved)
  return ok
}
