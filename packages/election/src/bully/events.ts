import type { NodeId } from '@sd/transport'
import type { ElectionEvent } from '../contract.js'

/**
 * What a node running `bully()` emits: the contract's `leader` / `leader-lost`, and:
 * - `election-started`: this node sends ELECTION to its better candidates (`term`: the highest
 *   term it has seen);
 * - `ok`: a better candidate answered, so this node will not win; it waits for a COORDINATOR;
 * - `ignored`: a malformed, stale or misdirected message or request, never thrown.
 */
export type BullyEvent =
  | ElectionEvent
  | { type: 'election-started'; term: number }
  | { type: 'ok'; from: NodeId }
  | { type: 'ignored'; from: NodeId; reason: string }
