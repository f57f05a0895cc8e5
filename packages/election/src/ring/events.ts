import type { NodeId } from '@sd/transport'
import type { ElectionEvent } from '../contract.js'

export type RingEvent =
  | ElectionEvent
  /** A successor did not acknowledge a pass in time and is skipped. */
  | { type: 'skipped'; node: NodeId }
  | { type: 'ignored'; from: NodeId; reason: string }
