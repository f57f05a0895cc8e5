// Standing and voting: the pre-vote (would a majority vote?), then the vote itself, in terms.
import type { NodeId } from '@sd/transport'
import { compareCandidates } from '../contract.js'
import { nextTerm, observeTerm, storedTerm } from '../terms.js'
import { loseLeader } from './following.js'
import { becomeLeader } from './leading.js'
import type { MajorityMessage } from './messages.js'
import type { MajorityCtx } from './protocol.js'
import {
  ELECT,
  ignore,
  loyal,
  type MajorityState,
  PRE_ROUND,
  ROUND,
  storedVote,
  VOTE_KEY,
} from './state.js'
import { releaseForHandover } from './transfer.js'
import { broadcast, counts, knownView, lost, won } from './view.js'

/**
 * A candidate this node must refuse whatever else holds: one out of the group it counts, or one
 * whose view is older than its own (view.ts, rule 1).
 */
function outOfView(s: MajorityState, candidate: NodeId, view: number | undefined): boolean {
  const mine = knownView(s)
  return !counts(s, candidate) || (mine !== undefined && (view ?? 0) < mine)
}

/** The view a request carries: this node's, once it follows views. */
const withView = <M extends object>(s: MajorityState, msg: M): M => {
  const view = knownView(s)
  return view === undefined ? msg : { ...msg, view }
}

export function onVoteRequest(
  s: MajorityState,
  candidate: NodeId,
  term: number,
  at: number,
  ctx: MajorityCtx,
  handover?: number,
  view?: number,
): void {
  // A node out of the view takes no part: it does not even refuse.
  if (s.passive) {
    ignore(candidate, 'vote request: not in the view', ctx)
    return
  }
  if (handover !== undefined) releaseForHandover(s, handover, candidate, ctx)
  const known = storedTerm(ctx.storage)
  if (term >= known) noteAsker(s, candidate, term)
  const vote = storedVote(ctx)
  let granted = false
  if (vote !== undefined && vote.term === term) granted = vote.for === candidate
  else if (term < known || s.role === 'leader' || loyal(s, candidate, ctx)) granted = false
  else if (outOfView(s, candidate, view)) granted = false
  else if (s.askers?.term === term && s.askers.best !== candidate) granted = false
  else {
    if (s.role === 'candidate') endRound(s, ctx)
    dropPreRound(s, ctx)
    loseLeader(s, ctx)
    observeTerm(ctx.storage, term)
    ctx.storage.set(VOTE_KEY, { term, for: candidate })
    s.loyalty = { to: candidate, term, until: ctx.monotonic() + s.settings.timeoutMs }
    ctx.emit({ type: 'voted', term, candidate })
    granted = true
  }
  ctx.send(candidate, {
    type: 'vote-reply',
    term,
    granted,
    at,
    known: storedTerm(ctx.storage),
  })
}

/** Preference, best effort: in one term, no vote for a candidate worse than one that asked. */
function noteAsker(s: MajorityState, candidate: NodeId, term: number): void {
  const a = s.askers
  if (a === undefined || term > a.term) s.askers = { term, best: candidate }
  else if (term === a.term && compareCandidates(candidate, a.best, s.settings.priority) > 0) {
    a.best = candidate
  }
}

/** The elect timer: stand, unless a leader or a candidate holds this node's loyalty. */
export function elect(s: MajorityState, ctx: MajorityCtx): void {
  if (s.role !== 'follower' || s.leader !== undefined || s.passive) return
  const now = ctx.monotonic()
  const loyalty = s.loyalty
  if (loyalty !== undefined && loyalty.to !== s.self && now < loyalty.until) {
    ctx.setTimer(ELECT, loyalty.until - now + candidacyDelay(s, ctx))
  } else if (s.standDown) {
    s.standDown = false
    s.watch.follow(ctx) // one more timeout, in which the others elect somebody
  } else {
    preVote(s, ctx)
  }
}

/**
 * Would a majority vote for this node now? Asked before standing, so that a node that cannot
 * win (cut off in a minority, or the only one to suspect a live leader) spends no term. Terms
 * inflated on a minority side used to split the next election after the heal along the old
 * partition line: the nodes with the higher term refused every candidate below it, and votes
 * given in vain held each side's voters for a timeout.
 */
export function preVote(s: MajorityState, ctx: MajorityCtx): void {
  if (s.passive) return
  if (!s.settings.preVote) {
    campaign(s, ctx)
    return
  }
  ctx.cancelTimer(ELECT)
  s.watch.stop(ctx)
  loseLeader(s, ctx)
  const term = storedTerm(ctx.storage) + 1
  s.preRound = { term, grants: new Set([s.self]), refusals: new Set() }
  ctx.emit({ type: 'pre-candidate', term })
  if (won(s, s.preRound.grants)) campaign(s, ctx)
  else {
    broadcast(s, withView(s, { type: 'pre-vote' as const, term }), ctx)
    ctx.setTimer(PRE_ROUND, s.settings.voteTimeoutMs)
  }
}

/** A pre-vote is granted by a node that would vote now: no leader heard, no vote owed. */
export function onPreVote(
  s: MajorityState,
  candidate: NodeId,
  term: number,
  ctx: MajorityCtx,
  view?: number,
): void {
  if (s.passive) {
    ignore(candidate, 'pre-vote: not in the view', ctx)
    return
  }
  const known = storedTerm(ctx.storage)
  const granted = s.role !== 'leader' && !loyal(s, candidate, ctx) && !outOfView(s, candidate, view)
  ctx.send(candidate, { type: 'pre-vote-reply', term, granted, known })
}

export function onPreVoteReply(
  s: MajorityState,
  from: NodeId,
  msg: Extract<MajorityMessage, { type: 'pre-vote-reply' }>,
  ctx: MajorityCtx,
): void {
  const pre = s.preRound
  if (pre === undefined || pre.term !== msg.term || s.role !== 'follower') return
  // Stand above every term the voters have seen, so that none refuses the term as too low.
  if (msg.known > storedTerm(ctx.storage)) observeTerm(ctx.storage, msg.known)
  if (!counts(s, from)) return
  if (msg.granted) {
    pre.grants.add(from)
    if (won(s, pre.grants)) {
      dropPreRound(s, ctx)
      campaign(s, ctx)
    }
  } else {
    pre.refusals.add(from)
    if (lost(s, pre.refusals)) endPreRound(s, ctx)
  }
}

/** The pre-vote failed: listen for a full timeout before asking again. */
export function endPreRound(s: MajorityState, ctx: MajorityCtx): void {
  dropPreRound(s, ctx)
  s.watch.follow(ctx)
}

export function dropPreRound(s: MajorityState, ctx: MajorityCtx): void {
  if (s.preRound === undefined) return
  ctx.cancelTimer(PRE_ROUND)
  s.preRound = undefined
}

/**
 * Stand in a new term: vote for itself (durably) and ask every member. `handover`: the term of
 * the leader that handed over to this node (see the `vote` message).
 */
export function campaign(s: MajorityState, ctx: MajorityCtx, handover?: number): void {
  ctx.cancelTimer(ELECT)
  s.watch.stop(ctx)
  loseLeader(s, ctx)
  const term = nextTerm(ctx.storage)
  ctx.storage.set(VOTE_KEY, { term, for: s.self })
  const at = ctx.monotonic()
  s.role = 'candidate'
  s.round = { term, votes: new Map([[s.self, at]]), refusals: new Set() }
  s.loyalty = { to: s.self, term, until: at + s.settings.voteTimeoutMs }
  ctx.emit({ type: 'candidate', term })
  if (won(s, s.round.votes)) becomeLeader(s, ctx)
  else {
    broadcast(
      s,
      withView(
        s,
        handover === undefined
          ? { type: 'vote' as const, term, at }
          : { type: 'vote' as const, term, at, handover },
      ),
      ctx,
    )
    ctx.setTimer(ROUND, s.settings.voteTimeoutMs)
  }
}

export function onVoteReply(
  s: MajorityState,
  from: NodeId,
  msg: Extract<MajorityMessage, { type: 'vote-reply' }>,
  ctx: MajorityCtx,
): void {
  if (msg.known > storedTerm(ctx.storage)) observeTerm(ctx.storage, msg.known)
  const round = s.round
  if (s.role !== 'candidate' || round === undefined || round.term !== msg.term) return
  if (!counts(s, from)) return
  if (msg.granted) {
    round.votes.set(from, msg.at)
    if (won(s, round.votes)) becomeLeader(s, ctx)
  } else {
    round.refusals.add(from)
    if (lost(s, round.refusals)) endRound(s, ctx)
  }
}

/** The round is over without a win: listen for a full timeout before standing again. */
export function endRound(s: MajorityState, ctx: MajorityCtx): void {
  ctx.cancelTimer(ROUND)
  s.round = undefined
  s.role = 'follower'
  if (s.loyalty?.to === s.self) s.loyalty = undefined
  s.watch.follow(ctx)
}

/** Rank-ordered slots, random inside the slot: the best live node usually stands first. */
export function candidacyDelay(s: MajorityState, ctx: MajorityCtx): number {
  const { delayMinMs, delayMaxMs, priority } = s.settings
  let rank = 0
  for (const id of s.members) {
    if (id !== s.self && id !== s.lastLeader && compareCandidates(id, s.self, priority) > 0) rank++
  }
  const slot = (delayMaxMs - delayMinMs) / s.members.length
  return delayMinMs + slot * (rank + ctx.random())
}
