import type { NodeId } from '@sd/transport'
import type { IgnoredEvent } from '../contract.js'

export interface TemporalDeliverEvent<P = unknown> {
  type: 'deliver'
  from: NodeId
  ts: number
  seq: number
  payload: P
  /** Arrived after its hold-back: delivered at once, outside the timestamp order. */
  late: boolean
  /** The member's clock at delivery. */
  atMs: number
}

export type TemporalEvent<P = unknown> = TemporalDeliverEvent<P> | IgnoredEvent
