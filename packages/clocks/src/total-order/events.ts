import type { NodeId } from '../ids.js'
import type { LamportTimestamp } from '../lamport.js'

/** A message handed to the application; `index` is its position in the one agreed sequence. */
export interface TotalOrderDelivery<P> {
  index: number
  /** The (T, pid) timestamp that places it in the total order. */
  timestamp: LamportTimestamp
  payload: P
}

export type TotalOrderEvent<P> =
  | { type: 'broadcast'; timestamp: LamportTimestamp; payload: P }
  | ({ type: 'deliver' } & TotalOrderDelivery<P>)
  /** A message dropped unread: not from a member of the group, or malformed. */
  | { type: 'ignored'; from: NodeId; reason: string }
