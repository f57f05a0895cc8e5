import type { NodeId } from '@sd/transport'
import type { MutexEvent } from '../contract.js'

/** What a node running `lamportMutex()` emits. */
export type LamportMutexEvent =
  | MutexEvent
  /** The node broadcast a request; it will enter with `token` (time and rank packed). */
  | { type: 'requested'; resource: string; time: number; token: number }
  /** A malformed or unexpected message or local request, dropped. */
  | { type: 'ignored'; from: NodeId; reason: string }
