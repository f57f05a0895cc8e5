import { isRecord, type NodeId } from '@sd/transport'
import type { MutexEvent } from '../contract.js'
import { lamportTime } from './timestamp.js'

/**
 * Lamport's mutual exclusion messages; `time` is the sender's Lamport clock. A RELEASE names the
 * request it ends by that request's time (`req`).
 */
export type LamportMutexMessage =
  | { type: 'request'; resource: string; time: number }
  /** The timestamped acknowledgement of a request. */
  | { type: 'reply'; resource: string; time: number }
  | { type: 'release'; resource: string; time: number; req: number }

export type LamportMutexEvent =
  | MutexEvent
  /** The node broadcast a request; it will enter with `token` (time and rank packed). */
  | { type: 'requested'; resource: string; time: number; token: number }
  /** A malformed or unexpected message or local request, dropped. */
  | { type: 'ignored'; from: NodeId; reason: string }

/** Checks a peer's message shape; returns it typed, or why it is refused. */
export function parseMessage(msg: unknown): LamportMutexMessage | string {
  if (!isRecord(msg)) return 'not an object'
  const m = msg
  if (typeof m.resource !== 'string') return 'no resource'
  if (lamportTime(m.time) === undefined) return 'no valid Lamport time'
  if (m.type === 'request' || m.type === 'reply') return m as LamportMutexMessage
  if (m.type === 'release') {
    return lamportTime(m.req) === undefined
      ? 'release without a request time'
      : (m as LamportMutexMessage)
  }
  return `unknown message type ${String(m.type)}`
}
