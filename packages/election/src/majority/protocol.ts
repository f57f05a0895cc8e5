import { type Ctx, InvalidArgumentError, type Protocol, type ProtocolFactory } from '@sd/transport'
import type { ElectionRequest } from '../contract.js'
import { restorableWatch, restoreWatch } from '../restore.js'
import { storedTerm } from '../terms.js'
import type { MajorityEvent } from './events.js'
import { onHeartbeat, onResign, suspect } from './following.js'
import { beat, expireLease, onAck, onLeaseTimer, stepDown } from './leading.js'
import { type MajorityMessage, parseMessage } from './messages.js'
import { type MajorityOptions, resolveOptions } from './options.js'
import {
  ELECT,
  ignore,
  LEASE,
  MajorityState,
  PRE_ROUND,
  ROUND,
  restoreMajority,
  shown,
  snapshotMajority,
  storedVote,
  TRANSFER,
} from './state.js'
import { onTransfer, onTransferTimer, requestTransfer } from './transfer.js'
import { onViewAccepted, onViewRequest } from './view.js'
import {
  elect,
  endPreRound,
  endRound,
  onPreVote,
  onPreVoteReply,
  onVoteReply,
  onVoteRequest,
  preVote,
} from './voting.js'

export type MajorityCtx = Ctx<MajorityMessage, MajorityEvent>

/**
 * Leader election by majority vote, in terms (Raft's election without the log), with bully-style
 * preference for the better candidate. Opt-in: it gives up the minority side of a partition.
 *
 * Guarantees (tested in the simulator, see test/majority*.test.ts):
 * - At most one leader per term, whatever the timing: a node votes at most once per term and
 *   records the vote durably before it answers (a restart with its disk cannot vote twice), and a
 *   candidate leads only with the votes of a strict majority of all members, itself included.
 * - Terms never go back at a node, across restarts too: a node announces (`leader`) only a term
 *   at or above the last one it announced, which it keeps in stable storage.
 * - No leader in a minority: a node leads at time t only if a majority of the members (itself
 *   included) answered a heartbeat or vote request it sent within (t - timeoutMs + intervalMs, t].
 *   A leader cut off from a majority emits `leader-lost` within timeoutMs - intervalMs of the
 *   cut, one interval before the others can elect; a side without a majority never elects, nor
 *   spends a term (pre-vote). Every duration is on the monotonic clock: the assumption is a bound
 *   on clock rates, not on readings, and a wall-clock step changes nothing. A leader that wakes
 *   from a pause past its lease steps down before it acts on anything.
 * - No flapping: a node that heard the leader (or granted a vote) within the last timeoutMs
 *   refuses every other candidate, so a slow node, or one that rejoins, cannot depose a leader
 *   that a majority hears; the leader's term does not change.
 * - Liveness once the network is sound: one leader agreed by every running node (in the tests,
 *   within 4 timeouts of the last fault); after a crash of the leader, about one timeout to elect
 *   its successor (suspicion, then the best live node stands in the first 1/n of the candidacy
 *   window). An uncontested election costs a pre-vote and a vote, each n - 1 requests and their
 *   answers, and n - 1 announcements: 5(n - 1) messages, 5n - 7 when the dead leader is asked.
 * - Preference, best effort: candidates stand in rank-ordered delay slots, and a node does not
 *   vote for a candidate worse than one that already asked it in the same term, so the best live
 *   node usually wins; it is not guaranteed (a slow best node loses to a faster one), and a better
 *   node that joins later does not take over.
 *
 * "Members" are the node and ctx.peers, until a `view` request sets the group to a view's members
 * (view.ts: what is counted across a change, and why two leaders still cannot overlap).
 *
 * A false suspicion (one node misses heartbeats) costs that node a refused pre-vote: it emits
 * `leader-lost` and `pre-candidate`, asks (2(n - 1) messages, nothing written, no term spent), is
 * refused by everyone who hears the leader, and follows the same leader again at its next
 * heartbeat. A follower accepts a leader of a term below the highest it has seen as long as it is
 * not below the last it announced, so a candidacy that did fail never locks a healthy leader out.
 * Only when a majority suspects does a new election happen, and the old leader steps down when
 * its lease ends or it hears of the new.
 */
export function majorityElection(
  options: MajorityOptions = {},
): ProtocolFactory<MajorityMessage, ElectionRequest, MajorityEvent> {
  const settings = resolveOptions(options)
  return (self) => {
    const s = new MajorityState(self, settings)
    return {
      snapshot: () => snapshotMajority(s),

      // Not with phi accrual: its history of arrivals cannot be given back to the watch.
      ...(restorableWatch(s.watch.settings) && {
        restore(snapshot: unknown) {
          const watch = restoreMajority(s, snapshot)
          // The beat reads the state when it runs, as the one `becomeLeader` gave the watch.
          restoreWatch(s.watch, watch, 'majorityElection()', (ctx: MajorityCtx) => beat(s, ctx))
        },
      }),

      start(ctx) {
        s.members = [ctx.self, ...ctx.peers]
        s.peers = [...s.members]
        s.passive = settings.awaitView
        s.majority = Math.floor(s.members.length / 2) + 1
        for (const id of s.members) {
          const p = settings.priority(id)
          if (typeof p !== 'number' || !Number.isFinite(p)) {
            throw new InvalidArgumentError(
              `majorityElection: priority(${JSON.stringify(id)}) must be a finite number, got ${p}`,
            )
          }
        }
        // The whole stored state is read now, so a damaged or foreign store (StoredStateError)
        // stops the node before it takes part in anything.
        storedTerm(ctx.storage)
        storedVote(ctx)
        shown(ctx)
        // A node that (re)starts may have acknowledged a leader in its previous life, whose lease
        // counts on it: it listens for a full timeout before it votes for anybody.
        s.loyalty = { to: undefined, term: 0, until: ctx.monotonic() + settings.timeoutMs }
        s.watch.follow(ctx)
      },
      onMessage(from, raw, ctx) {
        expireLease(s, ctx)
        const msg = parseMessage(raw)
        if (typeof msg === 'string') ignore(from, msg, ctx)
        else if (from === self || !s.peers.includes(from)) ignore(from, 'no member', ctx)
        else if (msg.type === 'pre-vote') onPreVote(s, from, msg.term, ctx, msg.view)
        else if (msg.type === 'pre-vote-reply') onPreVoteReply(s, from, msg, ctx)
        else if (msg.type === 'vote')
          onVoteRequest(s, from, msg.term, msg.at, ctx, msg.handover, msg.view)
        else if (msg.type === 'vote-reply') onVoteReply(s, from, msg, ctx)
        else if (msg.type === 'leader' || msg.type === 'heartbeat')
          onHeartbeat(s, from, msg.term, msg.at, ctx)
        else if (msg.type === 'ack') onAck(s, from, msg.term, msg.at, ctx, msg.view)
        else if (msg.type === 'stale') {
          if (s.role === 'leader' && msg.term > s.leaderTerm) stepDown(s, 'newer-leader', ctx)
        } else if (msg.type === 'transfer') onTransfer(s, from, msg, ctx)
        else onResign(s, from, msg.term, ctx)
      },
      onTimer(key, ctx) {
        expireLease(s, ctx)
        const watched = s.watch.onTimer(key, ctx)
        if (watched === 'suspect') suspect(s, ctx)
        if (watched !== undefined) return
        if (key === ELECT) elect(s, ctx)
        else if (key === PRE_ROUND) {
          if (s.preRound !== undefined) endPreRound(s, ctx)
        } else if (key === ROUND) {
          if (s.role === 'candidate') endRound(s, ctx)
        } else if (key === LEASE) onLeaseTimer(s, ctx)
        else if (key === TRANSFER) onTransferTimer(s, ctx)
      },
      onRequest(req, ctx) {
        expireLease(s, ctx)
        const type: unknown = req?.type
        if (type === 'start') {
          // As if the leader had been suspected: ask now, whatever this node heard lately (the
          // others still refuse while they hear a leader).
          if (s.role === 'follower' && s.preRound === undefined) preVote(s, ctx)
        } else if (type === 'resign') {
          s.standDown = true
          if (s.role === 'leader') stepDown(s, 'resign', ctx)
          else if (s.role === 'candidate') endRound(s, ctx)
          else if (s.preRound !== undefined) endPreRound(s, ctx)
        } else if (type === 'transfer') {
          requestTransfer(s, (req as { to?: unknown }).to, ctx)
        } else if (type === 'view') {
          onViewRequest(s, req, ctx)
        } else if (type === 'view-accepted') {
          onViewAccepted(s, req, ctx)
        } else {
          ignore(self, 'malformed request', ctx)
        }
      },
    } satisfies Protocol<MajorityMessage, ElectionRequest, MajorityEvent>
  }
}
