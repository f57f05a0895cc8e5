// Every node's side: taking committed views in order, and being an acceptor (Paxos' voter) for the next.
import type { NodeId } from '@sd/transport'
import { admitsThisIncarnation } from './generation.js'
import { onViewInstalled } from './leading.js'
import type { MembershipMessage } from './messages.js'
import {
  type Ballot,
  compareBallots,
  type MembershipCtx,
  type MembershipState,
  writeDurable,
} from './state.js'
import { type ViewRecord, viewEvent } from './view.js'

/**
 * A committed view heard of: installed if it is the next one (or, for a joiner, the view that
 * admitted it); a later one means views were missed, so ask `from` for the next.
 */
export function offerView(
  s: MembershipState,
  from: NodeId,
  record: ViewRecord,
  ctx: MembershipCtx,
) {
  const current = s.current()
  if (current === undefined) {
    if (admitsThisIncarnation(record, s.self, s.durable.generation)) install(s, record, ctx)
    return
  }
  if (record.view === current.view + 1) {
    install(s, record, ctx)
    // Still behind: the one that sent this view likely holds the next.
    if (s.behind !== undefined && s.behind > record.view && !s.out()) {
      ctx.send(from, { type: 'fetch', after: record.view })
    }
  } else if (record.view > current.view + 1) {
    s.behind = Math.max(s.behind ?? 0, record.view)
    ctx.send(from, { type: 'fetch', after: current.view })
  }
}

/**
 * The retry tick of a node that heard of views it lacks: ask the members of its view in turn (the
 * leader may have joined after the view asked for, and not hold it).
 */
export function fetchMissing(s: MembershipState, ctx: MembershipCtx): void {
  const current = s.current()
  if (current === undefined || s.behind === undefined) return
  if (s.behind <= current.view) {
    s.behind = undefined
    return
  }
  const others = current.members.filter((id) => id !== s.self)
  if (others.length === 0) return
  s.fetchTurn = (s.fetchTurn + 1) % others.length
  ctx.send(others[s.fetchTurn]!, { type: 'fetch', after: current.view })
}

export function install(s: MembershipState, record: ViewRecord, ctx: MembershipCtx): void {
  const wasMember = s.current()?.members.includes(s.self) ?? false
  const d = s.durable
  d.views.push(record)
  // What was accepted was for this view number: from now on the acceptor votes on the next.
  d.accepted = null
  d.removals = d.removals.filter((id) => record.members.includes(id))
  writeDurable(d, ctx)
  ctx.emit(viewEvent(record))
  if (wasMember && !record.members.includes(s.self)) {
    ctx.emit({ type: 'left', view: record.view, reason: d.leaving ? 'leave' : 'removed' })
    s.lead = undefined
    s.queue = []
    ctx.cancelTimer('membership:retry')
    return
  }
  onViewInstalled(s, ctx)
}

export function answerFetch(s: MembershipState, from: NodeId, after: number, ctx: MembershipCtx) {
  const record = s.durable.views.find((r) => r.view === after + 1)
  if (record !== undefined) ctx.send(from, { type: 'install', record })
}

/** Paxos phase 1 at an acceptor: promise `ballot` unless it promised a higher one. */
export function onPrepare(
  s: MembershipState,
  ballot: Ballot,
  ctx: MembershipCtx,
): Extract<MembershipMessage, { type: 'promise' }> | undefined {
  const d = s.durable
  if (d.promised !== null && compareBallots(ballot, d.promised) < 0) return undefined
  if (d.promised === null || compareBallots(ballot, d.promised) > 0) {
    d.promised = { ...ballot }
    writeDurable(d, ctx)
  }
  const view = s.current()?.view ?? 0
  const accepted = d.accepted
  return accepted !== null && accepted.record.view === view + 1
    ? { type: 'promise', term: ballot.term, view, accepted }
    : { type: 'promise', term: ballot.term, view }
}

/**
 * Paxos phase 2 at an acceptor: accept `record` (the view after its current one) in `ballot`
 * unless it promised a higher ballot. Returns whether it accepted.
 */
export function onAccept(
  s: MembershipState,
  ballot: Ballot,
  record: ViewRecord,
  ctx: MembershipCtx,
): boolean {
  const d = s.durable
  const current = s.current()
  if (current === undefined || record.view !== current.view + 1) {
    if (current !== undefined && record.view > current.view + 1) {
      s.behind = Math.max(s.behind ?? 0, record.view - 1)
      ctx.send(ballot.by, { type: 'fetch', after: current.view })
    }
    return false
  }
  if (d.promised !== null && compareBallots(ballot, d.promised) < 0) return false
  d.promised = { ...ballot }
  d.accepted = { term: ballot.term, by: ballot.by, record }
  writeDurable(d, ctx)
  ctx.emit({
    type: 'acknowledged',
    view: record.view,
    members: [...record.members],
    leader: ballot.by,
    term: ballot.term,
  })
  return true
}
