import type { Ctx, NodeId } from '@sd/transport'
import type { LeaderEvent, LeaderLostEvent } from './contract.js'
import type { LeaderWatch } from './detector/heartbeat.js'

/** What the two ring elections (ring and Chang-Roberts) keep of the leadership they follow. */
export interface FollowedLeadership {
  /** The leader followed and its term, undefined while none is trusted. */
  current: { leader: NodeId; term: number } | undefined
  /** The newest term this member followed. */
  lastTerm: number
  /** A member that resigned stays out of elections until a leader is announced. */
  standAside: boolean
  watch: LeaderWatch
}

/** Only the leadership events are emitted here; each protocol's event union includes them. */
type LeadershipCtx<Msg> = Ctx<Msg, LeaderEvent | LeaderLostEvent>

/**
 * Follows `leader` in `term` (a resignation ends with it): announces it, then sends heartbeats
 * with `beat` when it is this member, or starts listening for them.
 */
export function followLeader<Msg>(
  s: FollowedLeadership,
  self: NodeId,
  leader: NodeId,
  term: number,
  ctx: LeadershipCtx<Msg>,
  beat: (ctx: LeadershipCtx<Msg>) => void,
): void {
  s.lastTerm = term
  s.current = { leader, term }
  s.standAside = false
  ctx.emit({ type: 'leader', leader, term })
  if (leader === self) s.watch.lead(ctx, beat)
  else s.watch.follow(ctx)
}

/** Stops trusting the leader followed, if any: `leader-lost`, and no more heartbeats either way. */
export function dropLeader<Msg>(s: FollowedLeadership, ctx: LeadershipCtx<Msg>): void {
  if (s.current === undefined) return
  ctx.emit({ type: 'leader-lost', term: s.current.term })
  s.current = undefined
  s.watch.stop(ctx)
}

/**
 * A leadership to follow: one of a newer term, or the one this member stopped trusting (the term
 * names its leader, so it is the same one, proved alive).
 */
export function isFresh(s: FollowedLeadership, term: number): boolean {
  return term > s.lastTerm || (term === s.lastTerm && s.current === undefined)
}
