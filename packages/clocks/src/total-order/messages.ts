import type { LamportTimestamp } from '../lamport.js'
import {
  isCount,
  isMemberId,
  isPeerLamportTime,
  isPlainRecord,
  typeName,
} from '../message-checks.js'

/** What travels: a broadcast or an acknowledgement, each with its Lamport time and a per-link sequence number. */
export type TotalOrderMessage<P> =
  | { type: 'to-msg'; link: number; time: number; payload: P }
  | { type: 'to-ack'; link: number; time: number; of: LamportTimestamp }

/**
 * A peer's message typed, or why it is refused. The payload is the application's, carried unread
 * and taken on trust as `P`.
 */
export function parseMessage<P>(raw: unknown): TotalOrderMessage<P> | string {
  if (!isPlainRecord(raw)) return 'not an object'
  if (raw.type !== 'to-msg' && raw.type !== 'to-ack') return `unknown message type ${typeName(raw)}`
  const { link, time } = raw
  if (!isCount(link)) return 'bad link sequence number'
  // The receiver adopts `time`: one above 2^52 could leave its clock no room to count on.
  if (!isPeerLamportTime(time)) return 'bad Lamport time (expected an integer from 0 to 2^52)'
  if (raw.type === 'to-msg') {
    if (!Object.hasOwn(raw, 'payload')) return 'malformed to-msg: no payload'
    return { type: 'to-msg', link, time, payload: raw.payload as P }
  }
  const of = raw.of
  if (!isPlainRecord(of) || !isCount(of.time) || !isMemberId(of.pid))
    return 'malformed to-ack: of (expected a Lamport timestamp { time, pid })'
  return { type: 'to-ack', link, time, of: { time: of.time, pid: of.pid } }
}
