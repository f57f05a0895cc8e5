/**
 * Judges a run of a membership protocol across all its nodes, from the events they emitted (and,
 * for the partition rule, the run's faults): the same shapes from the simulator or real processes.
 */
import { type FaultEvent, type NodeId, sortNodeIds, type TimedEvent } from '@sd/transport'
import { majorityOf } from './view.js'

export type ViewViolation =
  /** Two nodes installed different members under one view number. */
  | {
      kind: 'conflicting-views'
      view: number
      members: [NodeId[], NodeId[]]
      nodes: [NodeId, NodeId]
    }
  /** A node installed views out of order (a gap or a step back). */
  | { kind: 'out-of-order'; node: NodeId; from: number; to: number; t: number }
  /** View `view` was installed at `t` before a majority of view `view - 1` acknowledged it. */
  | {
      kind: 'unacknowledged'
      view: number
      t: number
      acknowledgedBy: NodeId[]
      previous: NodeId[]
    }
  /**
   * `node` committed `view` at `t` though fewer than a majority of the view before acknowledged
   * it from its side of the network (`acknowledgedBy`: those who did).
   */
  | { kind: 'minority-commit'; node: NodeId; view: number; t: number; acknowledgedBy: NodeId[] }

export interface CheckViewsOptions {
  /**
   * The run's faults (`faultsOf(net.trace)`): judge "no commit on a minority side", that is, every
   * commit counted acknowledgements from a majority of the view before, each given while the
   * acknowledging node was on the committer's side of every partition.
   */
  faults?: readonly FaultEvent[]
}

/** Whether `a` and `b` were on one side of the network at `t` (nodes a partition does not list form one side). */
function sameSide(cuts: readonly FaultEvent[], t: number, a: NodeId, b: NodeId): boolean {
  const cut = cuts.filter((f) => f.t <= t).at(-1)
  if (cut?.type !== 'partition') return true
  const sideOf = (id: NodeId) => cut.groups.findIndex((g) => g.includes(id))
  return sideOf(a) === sideOf(b)
}

export interface ViewVerdict {
  ok: boolean
  violations: ViewViolation[]
  /** Per node, the last view it installed. */
  last: Map<NodeId, { view: number; members: NodeId[] }>
}

const fieldsOf = (e: unknown): Record<string, unknown> =>
  typeof e === 'object' && e !== null ? (e as Record<string, unknown>) : {}
const same = (a: readonly NodeId[], b: readonly NodeId[]) =>
  a.length === b.length && a.every((id, i) => id === b[i])

/**
 * Views totally ordered (one member list per view number, across all nodes), installed in order
 * at each node, each acknowledged by a majority of the view before it first, and, given the
 * faults, none committed on a minority side of a partition.
 */
export function checkViews(
  events: readonly TimedEvent[],
  options: CheckViewsOptions = {},
): ViewVerdict {
  const violations: ViewViolation[] = []
  const byNumber = new Map<number, { members: NodeId[]; node: NodeId; t: number }>()
  const last = new Map<NodeId, { view: number; members: NodeId[] }>()
  const acks = new Map<string, { node: NodeId; t: number }[]>()
  const acknowledgements: {
    node: NodeId
    t: number
    view: number
    leader: NodeId
    term: number
  }[] = []
  const commits: { node: NodeId; view: number; t: number; term: number }[] = []
  for (const { node, t, event } of events) {
    const e = fieldsOf(event)
    const view = e.view as number
    const members = e.members as NodeId[]
    if (e.type === 'acknowledged') {
      const key = `${view}:${JSON.stringify(members)}`
      acks.set(key, [...(acks.get(key) ?? []), { node, t }])
      acknowledgements.push({ node, t, view, leader: e.leader as NodeId, term: e.term as number })
    } else if (e.type === 'committed') commits.push({ node, view, t, term: e.term as number })
    if (e.type !== 'view') continue
    const seen = byNumber.get(view)
    if (seen === undefined) byNumber.set(view, { members, node, t })
    else if (!same(seen.members, members)) {
      violations.push({
        kind: 'conflicting-views',
        view,
        members: [seen.members, members],
        nodes: [seen.node, node],
      })
    }
    const prev = last.get(node)
    if (prev !== undefined && view !== prev.view && view !== prev.view + 1) {
      violations.push({ kind: 'out-of-order', node, from: prev.view, to: view, t })
    }
    last.set(node, { view, members })
  }
  for (const [view, first] of byNumber) {
    const previous = byNumber.get(view - 1)?.members
    if (view === 1 || previous === undefined) continue
    const key = `${view}:${JSON.stringify(first.members)}`
    const by = new Set(
      (acks.get(key) ?? [])
        .filter((a) => a.t <= first.t && previous.includes(a.node))
        .map((a) => a.node),
    )
    if (by.size < majorityOf(previous.length)) {
      violations.push({
        kind: 'unacknowledged',
        view,
        t: first.t,
        acknowledgedBy: [...by],
        previous,
      })
    }
  }
  if (options.faults !== undefined) {
    const cuts = options.faults.filter((f) => f.type === 'partition' || f.type === 'heal')
    for (const c of commits) {
      const previous = byNumber.get(c.view - 1)?.members
      if (previous === undefined) continue
      // The acknowledgements of this proposal given while the acker was on the committer's side.
      const together = new Set(
        acknowledgements
          .filter(
            (a) =>
              a.view === c.view &&
              a.leader === c.node &&
              a.term === c.term &&
              a.t <= c.t &&
              previous.includes(a.node) &&
              sameSide(cuts, a.t, a.node, c.node),
          )
          .map((a) => a.node),
      )
      if (together.size < majorityOf(previous.length)) {
        violations.push({
          kind: 'minority-commit',
          node: c.node,
          view: c.view,
          t: c.t,
          acknowledgedBy: sortNodeIds(together),
        })
      }
    }
  }
  return { ok: violations.length === 0, violations, last }
}
