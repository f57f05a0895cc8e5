import type { NodeId } from '@sd/transport'
import type { ElectionEvent } from '../contract.js'

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
