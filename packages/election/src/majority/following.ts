// A follower's side: heartbeats heard, the leader followed, lost or resigned.
import type { NodeId } from '@sd/transport'
import { observeTerm } from '../terms.js'
import { stepDown } from './leading.js'
import type { MajorityCtx } from './protocol.js'
import { ELECT, ignore, loyal, type MajorityState, SHOWN_KEY, shown } from './state.js'
import { settleTransfer } from './transfer.js'
import { candidacyDelay, dropPreRound, endRound } from './voting.js'

export function onHeartbeat(
  s: MajorityState,
  from: NodeId,
  term: number,
  at: number,
  ctx: MajorityCtx,
): void {
  const last = shown(ctx)
  if (term < last.term || (term === last.term && from !== last.leader)) {
    // This node announced a later leader already: tell the sender it is not leader any more.
    ctx.send(from, { type: 'stale', term: last.term })
    return
  }
  if (s.role === 'leader') {
    if (term <= s.leaderTerm) {
      ignore(from, `heartbeat of term ${term}`, ctx)
      return
    }
    stepDown(s, 'newer-leader', ctx)
  } else if (loyal(s, from, ctx) && s.loyalty!.term > term) {
    // It voted (or stands) in a later term, and that candidate may still win: wait.
    return
  }
  follow(s, from, term, at, ctx)
}

function follow(
  s: MajorityState,
  leader: NodeId,
  term: number,
  at: number,
  ctx: MajorityCtx,
): void {
  if (s.role === 'candidate') endRound(s, ctx)
  dropPreRound(s, ctx)
  // The leader it already follows: one more heartbeat for the detector (phi learns its rhythm).
  // A new leader, or one found again after a suspicion: the watch starts afresh.
  const again = s.leader === leader && s.leaderTerm === term
  if (s.leader !== leader || s.leaderTerm !== term) {
    observeTerm(ctx.storage, term)
    if (term > shown(ctx).term) ctx.storage.set(SHOWN_KEY, { term, leader })
    s.leader = leader
    s.leaderTerm = term
    s.lastLeader = leader
    s.standDown = false
    ctx.emit({ type: 'leader', leader, term })
    // A request wired to the announcement may have changed everything: it is this node's state now.
    if (s.leader !== leader || s.leaderTerm !== term) return
    settleTransfer(s, leader, term, ctx)
  }
  ctx.cancelTimer(ELECT)
  s.loyalty = { to: leader, term, until: ctx.monotonic() + s.settings.timeoutMs }
  if (again) s.watch.heard(ctx)
  else s.watch.follow(ctx)
  ctx.send(
    leader,
    s.view === undefined ? { type: 'ack', term, at } : { type: 'ack', term, at, view: s.view },
  )
}

/** The leader fell silent: for timeoutMs, or as long as phi accrual takes to suspect it. */
export function suspect(s: MajorityState, ctx: MajorityCtx): void {
  loseLeader(s, ctx)
  // A node out of the view never stands: it listens on for whoever leads.
  if (s.passive) s.watch.follow(ctx)
  else ctx.setTimer(ELECT, candidacyDelay(s, ctx))
}

export function onResign(s: MajorityState, from: NodeId, term: number, ctx: MajorityCtx): void {
  if (s.role !== 'follower' || s.leader !== from || s.leaderTerm !== term) return
  loseLeader(s, ctx)
  s.loyalty = undefined
  s.watch.stop(ctx)
  if (s.passive) s.watch.follow(ctx)
  else ctx.setTimer(ELECT, candidacyDelay(s, ctx))
}

export function loseLeader(s: MajorityState, ctx: MajorityCtx): void {
  if (s.role !== 'follower' || s.leader === undefined) return
  ctx.emit({ type: 'leader-lost', term: s.leaderTerm })
  s.leader = undefined
}
