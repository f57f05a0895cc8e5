// The leader's side: one change at a time, each view number decided by a majority of the view before it.
import { type NodeId, sortNodeIds } from '@sd/transport'
import { install, onAccept, onPrepare } from './installing.js'
import type { Accepted, Change, MembershipMessage } from './messages.js'
import { compareBallots, type MembershipCtx, type MembershipState, writeDurable } from './state.js'
import type { ViewRecord } from './view.js'

/** The election says this node leads `term`: take over the view protocol, once per term. */
export function takeOffice(s: MembershipState, term: number, ctx: MembershipCtx): void {
  if (s.lead?.term === term) return
  const d = s.durable
  // A term it proposed in before (in a previous life) could hold proposals it forgot.
  if (term <= d.led) return
  d.led = term
  writeDurable(d, ctx)
  s.lead = { term, phase: 'idle', promises: new Map(), proposal: undefined, acks: new Set() }
  s.queue = []
  // Always ask first: a view the previous leader got accepted but never announced is finished.
  prepare(s, ctx)
}

export function leaveOffice(s: MembershipState): void {
  s.lead = undefined
  s.queue = []
}

/** Phase 1 for the view after the current one, among the current view's members. */
function prepare(s: MembershipState, ctx: MembershipCtx): void {
  const lead = s.lead!
  const current = s.current()
  lead.promises.clear()
  lead.acks.clear()
  lead.proposal = undefined
  // A leader that has not joined yet knows no view: it cannot drive until it has one.
  if (current === undefined) {
    lead.phase = 'idle'
    return
  }
  lead.phase = 'prepare'
  for (const id of current.members) {
    if (id === s.self) {
      const promise = onPrepare(s, { term: lead.term, by: s.self }, ctx)
      if (promise !== undefined) onPromise(s, s.self, promise, ctx)
    } else ctx.send(id, { type: 'prepare', term: lead.term })
  }
}

export function onPromise(
  s: MembershipState,
  from: NodeId,
  msg: Extract<MembershipMessage, { type: 'promise' }>,
  ctx: MembershipCtx,
): void {
  const lead = s.lead
  const current = s.current()
  if (lead?.phase !== 'prepare' || msg.term !== lead.term || current === undefined) return
  if (!current.members.includes(from)) return
  if (msg.view > current.view) {
    // The acceptor knows a later committed view: catch up first, then ask again.
    s.behind = Math.max(s.behind ?? 0, msg.view)
    ctx.send(from, { type: 'fetch', after: current.view })
    return
  }
  const accepted = msg.accepted?.record.view === current.view + 1 ? msg.accepted : null
  lead.promises.set(from, accepted)
  if (lead.promises.size >= s.settings.quorum(current.members.length)) proposeNext(s, ctx)
}

/**
 * With the promises of a majority: propose what the highest ballot among them accepted (it may
 * have been committed), else the next change waiting, else wait for one.
 */
function proposeNext(s: MembershipState, ctx: MembershipCtx): void {
  const lead = s.lead!
  const current = s.current()!
  let best: Accepted | null = null
  for (const a of lead.promises.values()) {
    if (a !== null && (best === null || compareBallots(a, best) > 0)) best = a
  }
  let record: ViewRecord | undefined = best?.record
  while (record === undefined && s.queue.length > 0) {
    record = applyChange(current, s.queue.shift()!)
  }
  if (record === undefined) {
    lead.phase = 'idle'
    return
  }
  lead.phase = 'accept'
  lead.proposal = record
  lead.acks.clear()
  for (const id of current.members) {
    if (id === s.self) {
      if (onAccept(s, { term: lead.term, by: s.self }, record, ctx)) {
        onAccepted(s, s.self, { type: 'accepted', term: lead.term, view: record.view }, ctx)
      }
    } else ctx.send(id, { type: 'accept', term: lead.term, record })
  }
}

/** The view after `current` with `change` made, or undefined when it changes nothing. */
export function applyChange(current: ViewRecord, change: Change): ViewRecord | undefined {
  const has = current.members.includes(change.id)
  if (change.op === 'join' ? has : !has) return undefined
  const members =
    change.op === 'join'
      ? sortNodeIds([...current.members, change.id])
      : current.members.filter((id) => id !== change.id)
  // A group never empties itself: the last member stays.
  if (members.length === 0) return undefined
  const record: ViewRecord = {
    view: current.view + 1,
    members,
    joined: change.op === 'join' ? [change.id] : [],
    left: change.op === 'join' ? [] : [change.id],
  }
  // The members' addresses carry over; a joiner's comes with its JOIN. Absent while none is known.
  const addresses = (current.addresses ?? []).filter((a) => members.includes(a.id))
  if (change.op === 'join' && change.address !== undefined) {
    addresses.push({ id: change.id, address: change.address })
  }
  if (change.op === 'join' && change.generation !== undefined) record.generation = change.generation
  if (addresses.length > 0) {
    const order = sortNodeIds(addresses.map((a) => a.id))
    record.addresses = order.map((id) => addresses.find((a) => a.id === id)!)
  }
  return record
}

export function onAccepted(
  s: MembershipState,
  from: NodeId,
  msg: Extract<MembershipMessage, { type: 'accepted' }>,
  ctx: MembershipCtx,
): void {
  const lead = s.lead
  const current = s.current()
  const proposal = lead?.proposal
  if (lead?.phase !== 'accept' || proposal === undefined || current === undefined) return
  if (msg.term !== lead.term || msg.view !== proposal.view || !current.members.includes(from))
    return
  lead.acks.add(from)
  if (lead.acks.size < s.settings.quorum(current.members.length)) return
  // Committed: a majority of the current view accepted it. Announce it to the old members and
  // the new (a joiner, or a leaver that must learn it is out), then take it here.
  ctx.emit({
    type: 'committed',
    view: proposal.view,
    members: [...proposal.members],
    term: lead.term,
  })
  for (const id of sortNodeIds(new Set([...current.members, ...proposal.members]))) {
    if (id !== s.self) ctx.send(id, { type: 'install', record: proposal })
  }
  lead.phase = 'idle'
  lead.proposal = undefined
  // Installing calls onViewInstalled, which starts the next change if one waits.
  install(s, proposal, ctx)
}

/** After any install: promises were for the view number just decided; start over for the next. */
export function onViewInstalled(s: MembershipState, ctx: MembershipCtx): void {
  const lead = s.lead
  if (lead === undefined) return
  lead.phase = 'idle'
  lead.promises.clear()
  lead.acks.clear()
  lead.proposal = undefined
  if (s.queue.length > 0) prepare(s, ctx)
}

/** A change for the leader: queued once, started at once if the leader waits for work. */
export function enqueue(s: MembershipState, change: Change, ctx: MembershipCtx): void {
  const lead = s.lead!
  if (!s.queue.some((c) => c.op === change.op && c.id === change.id)) s.queue.push(change)
  if (lead.phase !== 'idle') return
  if (lead.promises.size >= s.settings.quorum(s.current()?.members.length ?? 1)) proposeNext(s, ctx)
  else prepare(s, ctx)
}

/** The retry tick of a leader: ask again whoever has not answered the current phase. */
export function retryPhase(s: MembershipState, ctx: MembershipCtx): void {
  const lead = s.lead
  const current = s.current()
  if (lead === undefined || current === undefined) return
  for (const id of current.members) {
    if (id === s.self) continue
    if (lead.phase === 'prepare' && !lead.promises.has(id)) {
      ctx.send(id, { type: 'prepare', term: lead.term })
    } else if (lead.phase === 'accept' && !lead.acks.has(id)) {
      ctx.send(id, { type: 'accept', term: lead.term, record: lead.proposal! })
    } else if (lead.phase === 'idle') {
      // So a member that missed an announcement catches up.
      ctx.send(id, { type: 'install', record: current })
    }
  }
}
