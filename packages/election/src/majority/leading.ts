// A leader's side: taking office, heartbeats, the lease and stepping down.
import type { NodeId } from '@sd/transport'
import type { StepDownReason } from './events.js'
import type { MajorityCtx } from './protocol.js'
import { heardFrom, reportSilent } from './silent.js'
import { LEASE, LONE_LEASE, type MajorityState, ROUND, SHOWN_KEY, shown } from './state.js'
import { settleTransfer } from './transfer.js'
import { broadcast, countFresh, leaseOf, noteAckView } from './view.js'
import { dropPreRound } from './voting.js'

export function becomeLeader(s: MajorityState, ctx: MajorityCtx): void {
  const round = s.round!
  dropPreRound(s, ctx)
  ctx.cancelTimer(ROUND)
  s.round = undefined
  s.role = 'leader'
  s.leader = s.self
  s.leaderTerm = round.term
  s.lastLeader = s.self
  s.loyalty = undefined
  s.standDown = false
  s.acks.clear()
  s.ledSince = ctx.monotonic()
  s.silent.clear()
  s.watchedSince.clear()
  countFresh(s)
  for (const [id, at] of round.votes) if (id !== s.self) s.acks.set(id, at)
  if (round.term > shown(ctx).term) {
    ctx.storage.set(SHOWN_KEY, { term: round.term, leader: s.self })
  }
  ctx.emit({ type: 'leader', leader: s.self, term: round.term })
  // Whatever the announcement caused at once (a `resign` wired to it) is this node's state now:
  // a leader that stepped down inside it sends no heartbeat.
  if (s.role !== 'leader' || s.leaderTerm !== round.term) return
  settleTransfer(s, s.self, round.term, ctx)
  s.firstBeat = true
  s.watch.lead(ctx, (ctx) => beat(s, ctx))
  checkLease(s, ctx)
}

/** One heartbeat of the leader (the watch's beat; `restore()` gives it back to a leading watch). */
export function beat(s: MajorityState, ctx: MajorityCtx): void {
  if (s.role !== 'leader') return
  const type = s.firstBeat ? 'leader' : 'heartbeat'
  s.firstBeat = false
  broadcast(s, { type, term: s.leaderTerm, at: ctx.monotonic() }, ctx)
  reportSilent(s, ctx)
}

export function onAck(
  s: MajorityState,
  from: NodeId,
  term: number,
  at: number,
  ctx: MajorityCtx,
  view?: number,
): void {
  if (s.role !== 'leader' || term !== s.leaderTerm) return
  if (at > (s.acks.get(from) ?? Number.NEGATIVE_INFINITY)) s.acks.set(from, at)
  heardFrom(s, from)
  noteAckView(s, from, view)
  checkLease(s, ctx)
}

/**
 * The lease: the leader leads while a majority (itself included) acknowledged a heartbeat it
 * sent less than timeoutMs - intervalMs ago. Such a follower refuses other candidates for
 * timeoutMs after it received that heartbeat, so the leader gives up at least one interval
 * before anyone can be elected: room for a late timer on a busy machine and for clocks that do
 * not run at quite the same rate. All of it on the monotonic clock: `at` is the leader's own
 * reading, echoed back, and a wall-clock step changes nothing. Every new expiry is announced in
 * a `lease` event (for a lock that grants only while the lease runs).
 */
export function checkLease(s: MajorityState, ctx: MajorityCtx): void {
  if (s.role !== 'leader') return
  // A majority of every view it counts (one, but for a while after a view change: view.ts).
  let expiry = Math.min(...s.counted.map((group) => leaseOf(s, group)))
  if (expiry === Number.POSITIVE_INFINITY) expiry = LONE_LEASE
  const now = ctx.monotonic()
  if (expiry - now < 1e-6) stepDown(s, 'lease', ctx)
  else if (expiry !== s.leaseExpiry) {
    s.leaseExpiry = expiry
    if (expiry !== LONE_LEASE) ctx.setTimer(LEASE, expiry - now)
    ctx.emit({ type: 'lease', term: s.leaderTerm, until: expiry })
  }
}

/** The lease timer: one a little early (real timers round) is set again for the rest. */
export function onLeaseTimer(s: MajorityState, ctx: MajorityCtx): void {
  const now = ctx.monotonic()
  const expiry = s.leaseExpiry
  if (s.role === 'leader' && expiry !== undefined && expiry - now >= 1e-6) {
    ctx.setTimer(LEASE, expiry - now)
  } else checkLease(s, ctx)
}

/**
 * Before anything else in a step: a leader whose lease ran out while it could not act (a pause,
 * a late timer) steps down first, so it never acts on an expired lease.
 */
export function expireLease(s: MajorityState, ctx: MajorityCtx): void {
  const expiry = s.leaseExpiry
  if (s.role === 'leader' && expiry !== undefined && ctx.monotonic() >= expiry) {
    stepDown(s, 'lease', ctx)
  }
}

export function stepDown(s: MajorityState, reason: StepDownReason, ctx: MajorityCtx): void {
  const term = s.leaderTerm
  s.watch.stop(ctx)
  ctx.cancelTimer(LEASE)
  s.leaseExpiry = undefined
  s.acks.clear()
  s.ledSince = undefined
  s.silent.clear()
  s.watchedSince.clear()
  s.counted = []
  s.viewAcks.clear()
  s.role = 'follower'
  s.leader = undefined
  s.loyalty = undefined
  ctx.emit({ type: 'stepped-down', term, reason })
  ctx.emit({ type: 'leader-lost', term })
  if (reason === 'resign') broadcast(s, { type: 'resign', term }, ctx)
  s.watch.follow(ctx)
}
