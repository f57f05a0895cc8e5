import type { NodeId } from '@sd/transport'

/** What a node running `tokenRing()` emits. */
export type TokenRingEvent =
  | { type: 'acquired'; resource: string; token: number }
  | { type: 'released'; resource: string; token: number }
  | { type: 'ring-changed'; members: NodeId[] }
  | { type: 'token-regenerated'; generation: number }
  | { type: 'token-destroyed'; generation: number }
  | { type: 'ignored'; from: NodeId; reason: string }
