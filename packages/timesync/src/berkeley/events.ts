import type { NodeId } from '@sd/transport'
import type { AdjustedEvent, IgnoredEvent, SyncFailedEvent } from '../contract.js'

/** The master's account of a round: who was averaged, who ignored, and the spread bound. */
export interface BerkeleyRoundEvent {
  type: 'berkeley-round'
  round: number
  /** The average relative to the master's clock (ms). */
  averageMs: number
  kept: NodeId[]
  ignored: NodeId[]
  /** Polled machines that did not answer in time: not adjusted. */
  silent: NodeId[]
  /**
   * After the adjustments (and their slews) every answering clock is within this of every other,
   * less the drift since: 2 × the largest estimate uncertainty.
   */
  spreadBoundMs: number
}

export type BerkeleyEvent = AdjustedEvent | SyncFailedEvent | BerkeleyRoundEvent | IgnoredEvent
