/**
 * Judges a run from its `leader` / `leader-lost` events alone: no two leaders in one term, terms
 * that never go back at a node, and who every node follows at the end.
 */
import type { NodeId } from '@sd/transport'

export interface TimedEvent {
  node: NodeId
  t: number
  event: unknown
}

export type ElectionViolation =
  | { kind: 'two-leaders-in-term'; term: number; leaders: NodeId[]; t: number }
  | { kind: 'term-went-back'; node: NodeId; from: number; to: number; t: number }

export interface ElectionVerdict {
  violations: ElectionViolation[]
  /** Per node, the leader and term of its last `leader` event, or undefined after a `leader-lost`. */
  final: Map<NodeId, { leader: NodeId; term: number } | undefined>
}

/**
 * `restarts` are not needed: terms must not go back at a node even across its restarts (they live
 * in stable storage), so a node's events are judged as one sequence.
 */
export function checkElection(events: readonly TimedEvent[]): ElectionVerdict {
  const violations: ElectionViolation[] = []
  const leadersOfTerm = new Map<number, Set<NodeId>>()
  const lastTerm = new Map<NodeId, number>()
  const final = new Map<NodeId, { leader: NodeId; term: number } | undefined>()
  for (const { node, t, event } of events) {
    const e = event as { type?: string; leader?: NodeId; term?: number }
    if (e.type !== 'leader' && e.type !== 'leader-lost') continue
    const term = e.term as number
    const before = lastTerm.get(node) ?? 0
    if (term < before) violations.push({ kind: 'term-went-back', node, from: before, to: term, t })
    else lastTerm.set(node, term)
    if (e.type === 'leader-lost') {
      final.set(node, undefined)
      continue
    }
    const leader = e.leader as NodeId
    final.set(node, { leader, term })
    const seen = leadersOfTerm.get(term) ?? new Set<NodeId>()
    if (!seen.has(leader)) {
      seen.add(leader)
      leadersOfTerm.set(term, seen)
      if (seen.size === 2)
        violations.push({ kind: 'two-leaders-in-term', term, leaders: [...seen], t })
    }
  }
  return { violations, final }
}

/**
 * The leader every node of `live` follows at the end, if they all follow the same one in the same
 * term; undefined otherwise.
 */
export function agreedLeader(
  verdict: ElectionVerdict,
  live: readonly NodeId[],
): { leader: NodeId; term: number } | undefined {
  let agreed: { leader: NodeId; term: number } | undefined
  for (const node of live) {
    const view = verdict.final.get(node)
    if (view === undefined) return undefined
    if (agreed === undefined) agreed = view
    else if (agreed.leader !== view.leader || agreed.term !== view.term) return undefined
  }
  return agreed
}
