import type { NodeId } from '@sd/transport'

/** What a node running `maekawa()` emits. */
export type MaekawaEvent =
  | { type: 'acquired'; resource: string; token: number }
  | { type: 'released'; resource: string; token: number }
  /** At start: this node's quorum. */
  | { type: 'quorum'; members: NodeId[] }
  /** The node gave a member's vote back on its INQUIRE. */
  | { type: 'relinquished'; to: NodeId }
  | { type: 'ignored'; from: NodeId; reason: string }
