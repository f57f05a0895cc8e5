/**
 * Judges an election that follows the agreed view, from a run's events and faults: the view in
 * force at each moment is the latest committed (`committed` events of the membership), and a
 * leader must reach a majority of *that* view's members (on its side, running) within the grace.
 */
import type { FaultEvent, NodeId, TimedEvent } from '@sd/transport'
import { type Leadership, leaderships, ledInMinority, reachability } from '../../src/leaderships.js'
import type { MembershipEvent } from '../../src/membership/events.js'

export interface CommittedView {
  t: number
  view: number
  members: NodeId[]
}

/** View 1 (the founders, from the start), then every view in the order it was first committed. */
export function committedViews(
  founders: readonly NodeId[],
  membership: readonly TimedEvent<MembershipEvent>[],
): CommittedView[] {
  const out: CommittedView[] = [{ t: Number.NEGATIVE_INFINITY, view: 1, members: [...founders] }]
  for (const { t, event } of membership) {
    if (event.type === 'committed' && event.view > out.at(-1)!.view) {
      out.push({ t, view: event.view, members: [...event.members] })
    }
  }
  return out
}

export interface ViewMinority {
  node: NodeId
  term: number
  view: number
  t: number
  reachable: NodeId[]
}

/** Leaderships that went on without a majority of the view in force within `graceMs`. */
export function ledInViewMinority(
  election: readonly TimedEvent[],
  faults: readonly FaultEvent[],
  views: readonly CommittedView[],
  ids: readonly NodeId[],
  end: number,
  graceMs: number,
): ViewMinority[] {
  const reach = reachability(ids, faults, end)
  const out: ViewMinority[] = []
  for (const lead of leaderships(election, faults, end)) {
    views.forEach((v, i) => {
      const next = views[i + 1]?.t ?? Number.POSITIVE_INFINITY
      const piece: Leadership = {
        ...lead,
        from: Math.max(lead.from, v.t),
        to: Math.min(lead.to, next),
      }
      if (piece.to <= piece.from) return
      const own = (reach.get(lead.node) ?? []).map((r) => ({
        ...r,
        reachable: r.reachable.filter((id) => v.members.includes(id)),
      }))
      const found = ledInMinority(piece, own, Math.floor(v.members.length / 2) + 1, graceMs)
      if (found !== undefined)
        out.push({ node: lead.node, term: lead.term, view: v.view, ...found })
    })
  }
  return out
}

/** Leaderships begun by a node not in the view in force then (a joiner not yet in, a departed one). */
export function ledOutOfView(
  election: readonly TimedEvent[],
  faults: readonly FaultEvent[],
  views: readonly CommittedView[],
  end: number,
): Array<{ node: NodeId; term: number; t: number; view: number }> {
  const out: Array<{ node: NodeId; term: number; t: number; view: number }> = []
  // A leadership of no duration is none (a leader's own commit that leaves it out ends it at once).
  for (const lead of leaderships(election, faults, end).filter((l) => l.to > l.from)) {
    const v = views.filter((c) => c.t <= lead.from).at(-1)!
    if (!v.members.includes(lead.node)) {
      out.push({ node: lead.node, term: lead.term, t: lead.from, view: v.view })
    }
  }
  return out
}

/**
 * Leaderships begun by a removed (or departed) node after the view without it was installed by
 * every member of that view.
 */
export function ledAfterRemoval(
  election: readonly TimedEvent[],
  membership: readonly TimedEvent<MembershipEvent>[],
  faults: readonly FaultEvent[],
  end: number,
): Array<{ node: NodeId; term: number; t: number; view: number }> {
  const installed = new Map<number, Map<NodeId, number>>()
  const records = new Map<number, { members: NodeId[]; left: NodeId[] }>()
  for (const { node, t, event } of membership) {
    if (event.type !== 'view') continue
    records.set(event.view, event)
    const at = installed.get(event.view) ?? new Map<NodeId, number>()
    if (!at.has(node)) at.set(node, t)
    installed.set(event.view, at)
  }
  const out: Array<{ node: NodeId; term: number; t: number; view: number }> = []
  const leads = leaderships(election, faults, end).filter((l) => l.to > l.from)
  for (const [view, record] of records) {
    const at = installed.get(view)!
    if (record.left.length === 0 || !record.members.every((id) => at.has(id))) continue
    const everywhere = Math.max(...record.members.map((id) => at.get(id)!))
    for (const lead of leads) {
      if (record.left.includes(lead.node) && lead.from >= everywhere) {
        out.push({ node: lead.node, term: lead.term, t: lead.from, view })
      }
    }
  }
  return out
}
