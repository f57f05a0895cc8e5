/**
 * The election follows the agreed view: a `{ type: 'view', view, members }` request sets the group
 * that votes, pre-votes, heartbeat acknowledgements and the lease count a majority of. A node out
 * of the view is passive: it never stands, never votes, and ignores vote requests (it still
 * follows the leader's heartbeats, to know who leads and so that a joiner's acknowledgements count
 * as soon as it is in). Before any view request the group is itself and ctx.peers, as always.
 *
 * Why two leaders still cannot overlap across a change. The views come from the agreed membership
 * (src/membership): each is committed by a majority of the one before, one change at a time, so
 * the majorities of two consecutive views intersect; and an acceptor accepts view w + 1 only once
 * it installed w, so view w + 2 exists only after a majority of w + 1 installed w + 1. Nodes learn
 * a committed view at different moments, so at any time some count under an older view than
 * others. Three rules keep the majorities they count intersecting:
 *
 * 1. A vote (and a pre-vote) carries the candidate's view; a voter whose view is later refuses
 *    it, as Raft's voter refuses a candidate whose log is behind. A candidate at view w needs a
 *    majority of w that had not installed w + 1 when they voted; once w + 2 exists a majority of
 *    w + 1 has installed w + 1, and that majority meets every majority of w: so a candidate two or
 *    more views behind can no longer win (its voters ran ahead of it), and one a view behind
 *    counts a majority that meets the current view's (consecutive views).
 * 2. Within one view, and between consecutive views, a candidate's voters and a leader's lease
 *    holders intersect, and a follower refuses other candidates for timeoutMs after it
 *    acknowledged the leader: the lease argument of protocol.ts, unchanged.
 * 3. A leader that installs view w + 1 while it leads counts its lease under both w and w + 1
 *    (a majority of each) until a majority of w + 1 acknowledged a heartbeat with view w + 1
 *    (they installed it). Until then a candidate may still count under w, and the leader's lease
 *    holds a majority of w against it; from then on rule 1 refuses any candidate at w (a majority
 *    of w meets the majority of w + 1 that installed w + 1), and the leader counts w + 1 alone. A
 *    leader elected at w counts w alone: its voters were a majority of w, which meets any
 *    majority of w - 1 a straggler could count.
 *
 * 4. What a node accepted counts before it installs it (a `view-accepted` request: Raft's servers
 *    use the latest configuration in their log, committed or not). View w + 1 commits once a
 *    majority of w accepted it; the install may reach them much later (a partition right after
 *    the commit). Stragglers that count w alone could elect, among a majority of w, a leader on a
 *    side that is a minority of w + 1 (the test shows it). A node that accepted w + 1 stands only
 *    with a majority of w and of w + 1, and refuses candidates whose view is below w + 1; since a
 *    majority of w accepted, any majority of w holds one such node.
 *
 * The membership commits a view only through the election's leader, while it leads, so the
 * views change under the leader's eye: it installs each one it commits at once. Not covered: a
 * node that restarts between accepting and installing forgets what it accepted (the membership
 * keeps it, but says it only when it accepts), so it counts as a straggler until it installs.
 */
import { isNodeId, type NodeId, sortNodeIds } from '@sd/transport'
import { loseLeader } from './following.js'
import { checkLease, stepDown } from './leading.js'
import type { MajorityMessage } from './messages.js'
import type { MajorityCtx } from './protocol.js'
import { type CountedView, ELECT, ignore, type MajorityState } from './state.js'
import { endPreRound, endRound } from './voting.js'

/**
 * A view may name nodes the runtime did not list at start (a joiner a deployment learns of from
 * the membership): the view is agreed, so they become peers, heard from and sent to. Sorted as
 * ctx.peers is, itself first, so a run without such nodes sends in the order it always did.
 */
function meet(s: MajorityState, members: readonly NodeId[]): void {
  const fresh = members.filter((id) => !s.peers.includes(id))
  if (fresh.length === 0) return
  s.peers = [s.self, ...sortNodeIds([...s.peers, ...fresh].filter((id) => id !== s.self))]
}

/** Every peer but itself: ctx.peers, and whoever a view named since. */
export function broadcast(s: MajorityState, msg: MajorityMessage, ctx: MajorityCtx): void {
  for (const id of s.peers) if (id !== s.self) ctx.send(id, msg)
}

/** A majority of a group of `n`. */
const majorityOf = (n: number) => Math.floor(n / 2) + 1

/** A view request: later views only (a restart shows its current view again: no change). */
export function onViewRequest(s: MajorityState, req: unknown, ctx: MajorityCtx): void {
  const { view, members } = (req ?? {}) as { view?: unknown; members?: unknown }
  if (
    !(Number.isSafeInteger(view) && (view as number) >= 0) ||
    !Array.isArray(members) ||
    members.length === 0 ||
    !members.every(isNodeId)
  ) {
    ignore(s.self, 'malformed view request', ctx)
    return
  }
  if (s.view !== undefined && (view as number) <= s.view) return
  meet(s, members as NodeId[])
  setGroup(s, view as number, [...(members as NodeId[])], ctx)
}

function setGroup(s: MajorityState, view: number, members: NodeId[], ctx: MajorityCtx): void {
  const wasPassive = s.passive
  if (s.pending !== undefined && s.pending.view <= view) s.pending = undefined
  s.view = view
  s.members = members
  s.majority = majorityOf(members.length)
  s.passive = !members.includes(s.self)
  if (s.passive) {
    if (s.role === 'leader') stepDown(s, 'not-in-view', ctx)
    else if (s.role === 'candidate') endRound(s, ctx)
    else if (s.preRound !== undefined) endPreRound(s, ctx)
    ctx.cancelTimer(ELECT)
    return
  }
  if (s.role === 'leader') {
    s.counted.push({ view, members })
    dropSettled(s)
    checkLease(s, ctx)
  } else if (s.role === 'candidate') {
    // Its round counted another group: start over under this one.
    endRound(s, ctx)
  } else if (s.preRound !== undefined) endPreRound(s, ctx)
  else if (wasPassive && s.leader === undefined) {
    // A joiner now in: listen for a timeout from now, then stand if nobody leads.
    loseLeader(s, ctx)
    s.watch.follow(ctx)
  }
}

/** Whether `id` counts in this node's rounds: a member of the view, or of the view it accepted. */
export const counts = (s: MajorityState, id: NodeId): boolean =>
  s.members.includes(id) || (s.pending?.members.includes(id) ?? false)

/** The view this node compares with a candidate's: the one it accepted if any, else its own. */
export const knownView = (s: MajorityState): number | undefined => s.pending?.view ?? s.view

const inGroup = (group: readonly NodeId[], ids: Iterable<NodeId>) => {
  let n = 0
  for (const id of ids) if (group.includes(id)) n++
  return n
}

/** A majority of the view, and of the view it accepted (rule 4), among `ids`. */
export function won(s: MajorityState, ids: Set<NodeId> | Map<NodeId, unknown>): boolean {
  const keys = [...ids.keys()]
  const p = s.pending
  return (
    inGroup(s.members, keys) >= s.majority &&
    (p === undefined || inGroup(p.members, keys) >= majorityOf(p.members.length))
  )
}

/** The refusals leave one of the groups without a majority: the round cannot be won. */
export function lost(s: MajorityState, refusals: Set<NodeId>): boolean {
  const p = s.pending
  return (
    inGroup(s.members, refusals) > s.members.length - s.majority ||
    (p !== undefined &&
      inGroup(p.members, refusals) > p.members.length - majorityOf(p.members.length))
  )
}

/**
 * The membership accepted view `view` (the one after its current view), not yet committed: until
 * it installs it (or a later one), this node votes only for candidates that know of it, and stands
 * only with a majority of both views (rule 4).
 */
export function onViewAccepted(s: MajorityState, req: unknown, ctx: MajorityCtx): void {
  const { view, members } = (req ?? {}) as { view?: unknown; members?: unknown }
  if (
    !(Number.isSafeInteger(view) && (view as number) >= 0) ||
    !Array.isArray(members) ||
    !members.every(isNodeId)
  ) {
    ignore(s.self, 'malformed view-accepted request', ctx)
    return
  }
  if (s.view === undefined || view !== s.view + 1 || s.passive) return
  meet(s, members as NodeId[])
  s.pending = { view, members: [...(members as NodeId[])] }
}

/** The group a new leader counts its lease over: the view it was elected in. */
export function countFresh(s: MajorityState): void {
  s.counted = [{ view: s.view, members: s.members }]
  s.viewAcks.clear()
}

/** A follower acknowledged a heartbeat with `view`: an older counted view may be settled. */
export function noteAckView(s: MajorityState, from: NodeId, view: number | undefined): void {
  if (view === undefined || view <= (s.viewAcks.get(from) ?? -1)) return
  s.viewAcks.set(from, view)
  dropSettled(s)
}

/** Rule 3: the oldest counted view goes once a majority of the next installed the next. */
function dropSettled(s: MajorityState): void {
  while (s.counted.length > 1) {
    const next = s.counted[1]!
    const installed = next.members.filter(
      (id) => id === s.self || (s.viewAcks.get(id) ?? -1) >= (next.view ?? 0),
    )
    if (installed.length < majorityOf(next.members.length)) return
    s.counted.shift()
  }
}

/**
 * When the lease ends by the acknowledgements of one counted view: a majority of its members,
 * itself included if it is one, acknowledged a heartbeat sent after `expiry - (timeout - interval)`.
 */
export function leaseOf(s: MajorityState, group: CountedView): number {
  const self = group.members.includes(s.self) ? 1 : 0
  const need = majorityOf(group.members.length) - self
  if (need <= 0) return Number.POSITIVE_INFINITY
  const ats: number[] = []
  for (const id of group.members) {
    const at = s.acks.get(id)
    if (id !== s.self && at !== undefined) ats.push(at)
  }
  const newest = ats.sort((a, b) => b - a)[need - 1]
  return newest === undefined
    ? Number.NEGATIVE_INFINITY
    : newest + s.settings.timeoutMs - s.settings.intervalMs
}
