import type { NodeId } from '@sd/transport'
import type { ElectionEvent } from '../contract.js'

/** Why a leader stopped leading. */
export type StepDownReason =
  /** No heartbeat acknowledged by a majority within timeoutMs: it may be cut off. */
  | 'lease'
  /** A `resign` request. */
  | 'resign'
  /** A view request left it out of the group (it was removed, or it left). */
  | 'not-in-view'
  /** It heard of the leader of a later term. */
  | 'newer-leader'
  /** It hands over to another node (`transferLeadership`): it gives its lease up first. */
  | 'transfer'

/** Why a leadership transfer did not happen (or did not end with the target leading). */
export type TransferFailure =
  /** This node does not lead (it may have just lost the lease). */
  | 'not-leader'
  /** The target is not a member, or is this node. */
  | 'unknown-target'
  /** A transfer of this node is still waiting for its target to win. */
  | 'in-progress'
  /** The target did not acknowledge a heartbeat of this term within the lease: it may be down. */
  | 'target-silent'
  /** No leader of a later term was heard within timeoutMs of the hand-over. */
  | 'timeout'
  /** Another node won the next term (the target lost, or was too slow). */
  | 'other-leader'

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
  /**
   * The leader of `term` hands over to `to`: it stepped down (its lease is given up) and told
   * `to` to stand at once. The node emits `transfer-failed` if `to` does not win the next term.
   */
  | { type: 'transfer-started'; term: number; to: NodeId }
  /** A transfer request refused, or a hand-over that did not make `to` leader. */
  | { type: 'transfer-failed'; term: number; to: NodeId; reason: TransferFailure }
  /**
   * The leader of `term` heard no acknowledgement from member `node` for `silentMs` (option
   * `silentAfterMs`): once per silence. Wire it to a membership's removal.
   */
  | { type: 'member-silent'; node: NodeId; term: number; silentMs: number }
  /** A message that was not acted upon, and why. */
  | { type: 'ignored'; from: NodeId; reason: string }
