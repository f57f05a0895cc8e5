import {
  intIn,
  isBoolean,
  isNodeId,
  isNonNegInt,
  isFiniteNumber as isTime,
  messageParser,
  type NodeId,
  optional,
} from '@sd/transport'

/**
 * What the nodes say. `at` is a reading of the monotonic clock of the node that asks (a
 * candidate's request, a leader's heartbeat), echoed back unchanged in the answer: the leader
 * measures its lease from it, and compares it only with its own readings.
 */
export type MajorityMessage =
  /**
   * Before it stands, a node asks whether the others would vote at all (pre-vote, as in Raft):
   * nothing is written and no term is spent, so a node cut off in a minority does not inflate
   * its term. `term` is the term it would stand in.
   */
  | { type: 'pre-vote'; term: number; view?: number }
  /**
   * The answer: `granted` when the voter hears no leader and owes no candidate its vote; `known`
   * is its highest term, so the candidate stands above it.
   */
  | { type: 'pre-vote-reply'; term: number; granted: boolean; known: number }
  /**
   * Candidate to every member: vote for me in `term`. `handover`: the term whose leader handed
   * over to this candidate (it stands on TIMEOUT-NOW), so a voter that has not yet heard the
   * `transfer` (it may come later) releases its loyalty to that leader all the same.
   */
  | { type: 'vote'; term: number; at: number; handover?: number; view?: number }
  /** The answer. `known` is the highest term the voter has seen, so a loser stands higher next. */
  | { type: 'vote-reply'; term: number; granted: boolean; at: number; known: number }
  /** A new leader's first heartbeat (the announcement)... */
  | { type: 'leader'; term: number; at: number }
  /** ...then one every intervalMs. */
  | { type: 'heartbeat'; term: number; at: number }
  /**
   * A follower accepted the heartbeat sent at `at`. `view` (on pre-vote, vote and ack): the view
   * of the agreed membership the sender installed last, sent once it follows views.
   */
  | { type: 'ack'; term: number; at: number; view?: number }
  /** A follower already announced the leader of a later `term`: the sender is not leader anymore. */
  | { type: 'stale'; term: number }
  /** The leader of `term` steps down on request: stand now, do not wait for its silence. */
  | { type: 'resign'; term: number }
  /**
   * The leader of `term` hands over to `to` (leadership transfer) and has already stepped down:
   * `to` stands at once (TIMEOUT-NOW, no pre-vote) above `known`, the highest term the leader
   * knows; the others release their loyalty to the leader and vote for `to` alone for a timeout.
   */
  | { type: 'transfer'; term: number; to: NodeId; known: number }

const isTerm = intIn(1, Number.MAX_SAFE_INTEGER)
/** Any safe integer: a vote-reply's `known` was never checked for a sign, and still is not. */
const isSafeInt = intIn(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)

/** The message if it has the shape of one, else a reason to ignore it. */
export const parseMessage = messageParser<MajorityMessage>({
  'pre-vote': { term: isTerm, view: optional(isNonNegInt) },
  'pre-vote-reply': { term: isTerm, granted: isBoolean, known: isNonNegInt },
  vote: { term: isTerm, at: isTime, handover: optional(isTerm), view: optional(isNonNegInt) },
  'vote-reply': { term: isTerm, granted: isBoolean, at: isTime, known: isSafeInt },
  leader: { term: isTerm, at: isTime },
  heartbeat: { term: isTerm, at: isTime },
  ack: { term: isTerm, at: isTime, view: optional(isNonNegInt) },
  stale: { term: isTerm },
  resign: { term: isTerm },
  transfer: { term: isTerm, to: isNodeId, known: isNonNegInt },
})
