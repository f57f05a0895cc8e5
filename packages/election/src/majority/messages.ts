import {
  intIn,
  isNonNegInt as isKnown,
  isRecord,
  isFiniteNumber as isTime,
  type NodeId,
} from '@sd/transport'
import type { ElectionEvent } from '../contract.js'

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
  | { type: 'pre-vote'; term: number }
  /**
   * The answer: `granted` when the voter hears no leader and owes no candidate its vote; `known`
   * is its highest term, so the candidate stands above it.
   */
  | { type: 'pre-vote-reply'; term: number; granted: boolean; known: number }
  /** Candidate to every member: vote for me in `term`. */
  | { type: 'vote'; term: number; at: number }
  /** The answer. `known` is the highest term the voter has seen, so a loser stands higher next. */
  | { type: 'vote-reply'; term: number; granted: boolean; at: number; known: number }
  /** A new leader's first heartbeat (the announcement), then one every intervalMs. */
  | { type: 'leader' | 'heartbeat'; term: number; at: number }
  /** A follower accepted the heartbeat sent at `at`. */
  | { type: 'ack'; term: number; at: number }
  /** A follower already announced the leader of a later `term`: the sender is not leader anymore. */
  | { type: 'stale'; term: number }
  /** The leader of `term` steps down on request: stand now, do not wait for its silence. */
  | { type: 'resign'; term: number }

const isTerm = intIn(1, Number.MAX_SAFE_INTEGER)

/** The message if it has the shape of one, else a reason to ignore it. */
export function parseMessage(raw: unknown): MajorityMessage | string {
  if (!isRecord(raw)) return 'malformed: not an object'
  const m = raw
  switch (m.type) {
    case 'vote':
    case 'leader':
    case 'heartbeat':
    case 'ack':
      return isTerm(m.term) && isTime(m.at) ? (m as MajorityMessage) : `malformed ${m.type}`
    case 'pre-vote':
      return isTerm(m.term) ? (m as MajorityMessage) : 'malformed pre-vote'
    case 'pre-vote-reply':
      return isTerm(m.term) && typeof m.granted === 'boolean' && isKnown(m.known)
        ? (m as MajorityMessage)
        : 'malformed pre-vote-reply'
    case 'vote-reply':
      return isTerm(m.term) &&
        isTime(m.at) &&
        typeof m.granted === 'boolean' &&
        typeof m.known === 'number' &&
        Number.isSafeInteger(m.known)
        ? (m as MajorityMessage)
        : 'malformed vote-reply'
    case 'stale':
    case 'resign':
      return isTerm(m.term) ? (m as MajorityMessage) : `malformed ${m.type}`
    default:
      return 'malformed: unknown type'
  }
}

/** Why a leader stopped leading. */
export type StepDownReason =
  /** No heartbeat acknowledged by a majority within timeoutMs: it may be cut off. */
  | 'lease'
  /** A `resign` request. */
  | 'resign'
  /** It heard of the leader of a later term. */
  | 'newer-leader'

/** The events of this algorithm, beside `leader` / `leader-lost`. */
export type MajorityEvent =
  | ElectionEvent
  /**
   * The node suspects the leader and asks whether the others would vote (pre-vote); it stands
   * (`candidate`) only if a majority would. `term` is the term it would stand in.
   */
  | { type: 'pre-candidate'; term: number }
  /** The node stands for `term` (it voted for itself, durably, and asks the others). */
  | { type: 'candidate'; term: number }
  /** The node gave its one vote of `term` (recorded durably before the answer left). */
  | { type: 'voted'; term: number; candidate: NodeId }
  /**
   * The leader of `term` holds its lease until `until`, a reading of its own monotonic clock
   * (`ctx.monotonic()`): emitted when it becomes leader and whenever the expiry moves. Whatever
   * the leader guards should act only while `ctx.monotonic() < until` (a lone member's lease never
   * ends: `Number.MAX_VALUE`). Past it, another leader may be elected.
   */
  | { type: 'lease'; term: number; until: number }
  /** The leader of `term` stops leading (a `leader-lost` follows). */
  | { type: 'stepped-down'; term: number; reason: StepDownReason }
  /** A message that was not acted upon, and why. */
  | { type: 'ignored'; from: NodeId; reason: string }
