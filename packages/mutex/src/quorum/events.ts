import type { NodeId } from '@sd/transport'
import type { MutexEvent } from '../contract.js'

/** What a node running `quorumMutex()` emits: `acquired` / `released`, and these. */
export type QuorumMutexEvent =
  | MutexEvent
  /** On entering: the quorum the client holds (`count` grants of `of` coordinators). */
  | { type: 'grants'; resource: string; count: number; of: number }
  /** A round failed (denials or timeout): the client gave back its grants and waits `delay` ms. */
  | { type: 'backoff'; resource: string; attempt: number; delay: number }
  /** A message or request that was not acted upon, and why. */
  | { type: 'ignored'; from: NodeId; reason: string }

/** @deprecated Use QuorumMutexEvent. */
export type QuorumEvent = QuorumMutexEvent
