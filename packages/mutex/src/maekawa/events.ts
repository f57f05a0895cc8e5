import type { NodeId } from '@sd/transport'

/** What a node running `maekawa()` emits. */
export type MaekawaEvent =
  | { type: 'acquired'; resource: string; token: number }
  | { type: 'released'; resource: string; token: number }
  /** At start: this node's quorum (none when restarted after a view: it waits for one). */
  | { type: 'quorum'; members: NodeId[] }
  /** A view installed: its members and this node's quorum in it (none when left out). */
  | { type: 'view'; view: number; members: NodeId[]; quorum: NodeId[] }
  /** The node gave a member's vote back on its INQUIRE. */
  | { type: 'relinquished'; to: NodeId }
  | { type: 'ignored'; from: NodeId; reason: string }
