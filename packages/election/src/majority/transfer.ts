// Leadership transfer: the leader hands over to a chosen follower with no election timeout between.
import type { NodeId } from '@sd/transport'
import { observeTerm, storedTerm } from '../terms.js'
import type { TransferFailure } from './events.js'
import { loseLeader } from './following.js'
import { stepDown } from './leading.js'
import type { MajorityCtx } from './protocol.js'
import { type MajorityState, shown, TRANSFER } from './state.js'
import { broadcast } from './view.js'
import { campaign, dropPreRound, endRound } from './voting.js'

/**
 * The leader hands over to `to`. With leases, "stops accepting new work" means it gives its
 * lease up first: it steps down (`stepped-down` with reason `transfer`, then `leader-lost`) before
 * anyone is released to vote, so the two leaderships never overlap. Then it tells every member:
 * `to` stands at once (TIMEOUT-NOW, skipping the pre-vote), the others vote for `to` alone for a
 * timeout. The target is up to date when it acknowledged a heartbeat of this term within the
 * lease (there is no log; the message carries the highest term the leader knows, which the target
 * stands above). If no leader of a later term is heard within timeoutMs, `transfer-failed`; the
 * group then elects as after any leader loss (the old leader does not resume: it gave its lease up).
 */
export function requestTransfer(s: MajorityState, to: unknown, ctx: MajorityCtx): void {
  const term = s.leaderTerm
  const target = to as NodeId
  const refusal = transferRefusal(s, to, ctx)
  if (refusal !== undefined) {
    ctx.emit({ type: 'transfer-failed', term, to: target, reason: refusal })
    return
  }
  ctx.emit({ type: 'transfer-started', term, to: target })
  stepDown(s, 'transfer', ctx)
  broadcast(s, { type: 'transfer', term, to: target, known: storedTerm(ctx.storage) }, ctx)
  s.loyalty = { to: target, term: term + 1, until: ctx.monotonic() + s.settings.timeoutMs }
  s.transfer = { to: target, term }
  ctx.setTimer(TRANSFER, s.settings.timeoutMs)
}

function transferRefusal(
  s: MajorityState,
  to: unknown,
  ctx: MajorityCtx,
): TransferFailure | undefined {
  if (s.transfer !== undefined) return 'in-progress'
  if (s.role !== 'leader') return 'not-leader'
  if (to === s.self || !s.members.includes(to as NodeId)) return 'unknown-target'
  const acked = s.acks.get(to as NodeId)
  const window = s.settings.timeoutMs - s.settings.intervalMs
  if (acked === undefined || ctx.monotonic() - acked >= window) return 'target-silent'
  return undefined
}

/** A member hears that the leader of `term` hands over to `to`. */
export function onTransfer(
  s: MajorityState,
  from: NodeId,
  msg: { term: number; to: NodeId; known: number },
  ctx: MajorityCtx,
): void {
  const last = shown(ctx)
  // Only the hand-over of the leader this node follows counts (a late one is stale).
  if (last.leader !== from || last.term !== msg.term || !s.members.includes(msg.to)) return
  if (msg.to === s.self) {
    if (msg.known > storedTerm(ctx.storage)) observeTerm(ctx.storage, msg.known)
    if (s.role === 'candidate') endRound(s, ctx)
    dropPreRound(s, ctx)
    s.standDown = false
    if (s.role !== 'leader' && !s.passive) campaign(s, ctx, msg.term)
    return
  }
  release(s, msg.term, msg.to, ctx)
}

/**
 * A vote request of a candidate the leader of `term` handed over to, maybe before the
 * `transfer` itself: it proves that leader gave its lease up (it sends TIMEOUT-NOW only after).
 */
export function releaseForHandover(
  s: MajorityState,
  term: number,
  candidate: NodeId,
  ctx: MajorityCtx,
): void {
  const last = shown(ctx)
  if (last.term !== term || last.leader === candidate) return
  if (s.loyalty !== undefined && s.loyalty.to !== last.leader) return
  release(s, term, candidate, ctx)
}

function release(s: MajorityState, term: number, to: NodeId, ctx: MajorityCtx): void {
  if (s.role !== 'follower') return
  dropPreRound(s, ctx)
  loseLeader(s, ctx)
  // Loyal to the target for a timeout: its vote request is granted, others' are refused, and a
  // late heartbeat of the old term is not followed again.
  s.loyalty = { to, term: term + 1, until: ctx.monotonic() + s.settings.timeoutMs }
  s.watch.follow(ctx)
}

/** A leader of a later term is known (this node follows it, or leads itself): the hand-over ends. */
export function settleTransfer(
  s: MajorityState,
  leader: NodeId,
  term: number,
  ctx: MajorityCtx,
): void {
  const t = s.transfer
  if (t === undefined || term <= t.term) return
  s.transfer = undefined
  ctx.cancelTimer(TRANSFER)
  if (leader !== t.to) {
    ctx.emit({ type: 'transfer-failed', term: t.term, to: t.to, reason: 'other-leader' })
  }
}

/** The hand-over's deadline passed without a leader of a later term. */
export function onTransferTimer(s: MajorityState, ctx: MajorityCtx): void {
  const t = s.transfer
  if (t === undefined) return
  s.transfer = undefined
  ctx.emit({ type: 'transfer-failed', term: t.term, to: t.to, reason: 'timeout' })
}
