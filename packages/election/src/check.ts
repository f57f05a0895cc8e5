/**
 * Judges a run of an election across all its nodes. From the emitted events alone: no two
 * leaders in one term, terms that never go back at a node, and who every node follows at the end.
 * Given the run's faults too (crashes, pauses, partitions): never two leaders at once, and, with
 * `minorityGraceMs`, no leader on a minority side.
 */
import { type FaultEvent, isNodeId, type NodeId, type TimedEvent } from '@sd/transport'
import { eventFields } from './event-fields.js'
import { leaderships, ledInMinority, membersOf, overlaps, reachability } from './leaderships.js'

/**
 * One emitted event (the shape of `emitsOf(trace)` in `@sd/transport`); `TimedEvent<ElectionEvent>`
 * when the protocol is known. The checker takes events of any protocol.
 */
export type { TimedEvent }

export type ElectionViolation =
  | { kind: 'two-leaders-in-term'; term: number; leaders: NodeId[]; t: number }
  | { kind: 'term-went-back'; node: NodeId; from: number; to: number; t: number }
  /** Two nodes each believed they led, in [from, to). */
  | {
      kind: 'two-leaders-at-once'
      leaders: [NodeId, NodeId]
      terms: [number, number]
      from: number
      to: number
    }
  /**
   * `node` still led `term` at `t`, though from `since` (t less the grace) to `t` it could not
   * reach a majority of running members at any moment: `reachable` is everyone it could reach
   * in that window, itself included.
   */
  | {
      kind: 'leader-in-minority'
      node: NodeId
      term: number
      since: number
      t: number
      reachable: NodeId[]
    }

export interface ElectionCheckOptions {
  /** Every member of the group. Default: every node an event or a fault names. */
  members?: readonly NodeId[]
  /**
   * Judge "no leader on a minority side": how long (ms, in the trace's time) a node may go on
   * leading after a partition, crash or pause left it with fewer than a majority of running
   * members on its side. Precisely: a node leading at t must have reached a majority within
   * [t - grace, t], each member at some moment of it (as a lease counts acknowledgements). The
   * majority mode's bound is its detection timeout. Leave it out for the
   * algorithms that elect a leader per side by design (bully, ring).
   */
  minorityGraceMs?: number
  /** When the run ended: a leadership still open ends here. Default: the last event or fault. */
  end?: number
}

export interface ElectionVerdict {
  violations: ElectionViolation[]
  /** Per node, the leader and term of its last `leader` event, or undefined after a `leader-lost`. */
  final: Map<NodeId, { leader: NodeId; term: number } | undefined>
}

/**
 * `events` are every node's emitted events in trace order (`emitsOf(net.trace, proto?)`), and
 * `faults` the run's faults (`faultsOf(net.trace)`); real runs build the same shapes with machine
 * time. Without `faults` only the per-term checks run (as before): a crashed leader would look
 * as if it led on. Restarts need no special care for those: terms live in stable storage, so a
 * node's events are judged as one sequence.
 */
export function checkElection(
  events: readonly TimedEvent[],
  faults?: readonly FaultEvent[],
  options: ElectionCheckOptions = {},
): ElectionVerdict {
  const verdict = checkTerms(events)
  if (faults === undefined) return verdict
  const end = options.end ?? lastTime(events, faults)
  const leads = leaderships(events, faults, end)
  for (const { a, b, from, to } of overlaps(leads)) {
    verdict.violations.push({
      kind: 'two-leaders-at-once',
      leaders: [a.node, b.node],
      terms: [a.term, b.term],
      from,
      to,
    })
  }
  const grace = options.minorityGraceMs
  if (grace !== undefined) {
    const members = options.members ?? membersOf(events, faults)
    const majority = Math.floor(members.length / 2) + 1
    const reach = reachability(members, faults, end)
    for (const lead of leads) {
      const found = ledInMinority(lead, reach.get(lead.node) ?? [], majority, grace)
      if (found === undefined) continue
      verdict.violations.push({
        kind: 'leader-in-minority',
        node: lead.node,
        term: lead.term,
        since: found.t - grace,
        t: found.t,
        reachable: found.reachable,
      })
    }
  }
  return verdict
}

function lastTime(events: readonly TimedEvent[], faults: readonly FaultEvent[]): number {
  let last = Number.NEGATIVE_INFINITY
  for (const e of events) last = Math.max(last, e.t)
  for (const f of faults) last = Math.max(last, f.t)
  return last
}

/** One leader per term, terms that never go back at a node, and every node's last view. */
function checkTerms(events: readonly TimedEvent[]): ElectionVerdict {
  const violations: ElectionViolation[] = []
  const leadersOfTerm = new Map<number, Set<NodeId>>()
  const lastTerm = new Map<NodeId, number>()
  const final = new Map<NodeId, { leader: NodeId; term: number } | undefined>()
  for (const { node, t, event } of events) {
    const e = eventFields(event)
    if (e === undefined || (e.type !== 'leader' && e.type !== 'leader-lost')) continue
    if (typeof e.term !== 'number') continue
    const term = e.term
    const before = lastTerm.get(node) ?? 0
    if (term < before) violations.push({ kind: 'term-went-back', node, from: before, to: term, t })
    else lastTerm.set(node, term)
    if (e.type === 'leader-lost') {
      final.set(node, undefined)
      continue
    }
    const leader = e.leader
    if (!isNodeId(leader)) continue // a leader that names nobody is not trusted
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
