import type { NodeId } from '@sd/transport'
import type { MutexEvent } from '../contract.js'

/** What a node running `ricartAgrawala()` emits. */
export type RicartAgrawalaEvent =
  | MutexEvent
  /**
   * The node multicast a request; it will enter with `token` (time and rank packed). `mode` is
   * present for a shared request only.
   */
  | { type: 'requested'; resource: string; time: number; token: number; mode?: 'shared' }
  /** A peer's request was queued without OK (the node holds, or its own request is earlier). */
  | { type: 'deferred'; to: NodeId; resource: string; time: number }
  /** alwaysAnswer only: `peer` gave neither OK nor DENY within answerTimeoutMs. */
  | { type: 'peer-suspected'; peer: NodeId; resource: string }
  /** A malformed or unexpected message or local request, dropped. */
  | { type: 'ignored'; from: NodeId; reason: string }
