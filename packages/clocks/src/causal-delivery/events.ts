import type { NodeId } from '../ids.js'

/** A message handed to the application, in causal order. */
export interface CausalDelivery<P> {
  from: NodeId
  /** Its sequence number among `from`'s broadcasts (1, 2, ...). */
  seq: number
  /** The vector timestamp the message carried. */
  clock: number[]
  payload: P
  /** It waited in the buffer for messages that causally precede it. */
  delayed: boolean
  /** The receiver's delivery vector right after this delivery. */
  local: number[]
}

/** What the causal broadcast protocol publishes. */
export type CausalEvent<P> =
  | { type: 'broadcast'; seq: number; clock: number[]; payload: P }
  | ({ type: 'deliver' } & CausalDelivery<P>)
  | { type: 'buffered'; from: NodeId; seq: number; clock: number[]; pending: number }
  /** A message dropped unread: not a causal broadcast of a member, or a malformed one. */
  | { type: 'ignored'; from: NodeId; reason: string }
