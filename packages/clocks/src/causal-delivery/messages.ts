import { isCount, isPlainRecord, typeName } from '../message-checks.js'

/** A causally ordered broadcast as it travels: the sender's delivery vector and the payload. */
export interface CausalMessage<P> {
  type: 'causal'
  /** clock[k] = how many broadcasts of member k (in ascending id order) the sender had delivered, its own included. */
  clock: number[]
  payload: P
}

/**
 * A peer's message typed, or why it is refused. The vector's length is checked against the group
 * by the buffer; the payload is the application's, carried unread and taken on trust as `P`.
 */
export function parseMessage<P>(raw: unknown): CausalMessage<P> | string {
  if (!isPlainRecord(raw)) return 'not a causal broadcast message'
  if (raw.type !== 'causal') return `unknown message type ${typeName(raw)}`
  if (!Array.isArray(raw.clock) || !raw.clock.every(isCount))
    return 'malformed causal: clock (expected integers >= 0)'
  if (!Object.hasOwn(raw, 'payload')) return 'malformed causal: no payload'
  return { type: 'causal', clock: raw.clock, payload: raw.payload as P }
}
