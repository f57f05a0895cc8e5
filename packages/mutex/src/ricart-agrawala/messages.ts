import { isRecord, type NodeId } from '@sd/transport'
import type { MutexEvent } from '../contract.js'
import { lamportTime } from '../lamport/timestamp.js'

/**
 * Ricart-Agrawala's messages. `time` is the sender's Lamport clock (merged on receipt). A reply
 * names the request it answers by that request's time (`req`), so a late reply to an older
 * request (of a node that crashed and restarted) is never counted for a newer one.
 */
export type RicartAgrawalaMessage =
  | { type: 'request'; resource: string; time: number }
  /** Permission to enter. */
  | { type: 'ok'; resource: string; time: number; req: number }
  /** alwaysAnswer only: "not now; OK follows when I release or my earlier request is done". */
  | { type: 'deny'; resource: string; time: number; req: number }

export type RicartAgrawalaEvent =
  | MutexEvent
  /** The node multicast a request; it will enter with `token` (time and rank packed). */
  | { type: 'requested'; resource: string; time: number; token: number }
  /** A peer's request was queued without OK (the node holds, or its own request is earlier). */
  | { type: 'deferred'; to: NodeId; resource: string; time: number }
  /** alwaysAnswer only: `peer` gave neither OK nor DENY within answerTimeoutMs. */
  | { type: 'peer-suspected'; peer: NodeId; resource: string }
  /** A malformed or unexpected message or local request, dropped. */
  | { type: 'ignored'; from: NodeId; reason: string }

/** Checks a peer's message shape; returns it typed, or why it is refused. */
export function parseMessage(msg: unknown): RicartAgrawalaMessage | string {
  if (!isRecord(msg)) return 'not an object'
  const m = msg
  if (typeof m.resource !== 'string') return 'no resource'
  if (lamportTime(m.time) === undefined) return 'no valid Lamport time'
  if (m.type === 'request') return m as RicartAgrawalaMessage
  if (m.type === 'ok' || m.type === 'deny') {
    return lamportTime(m.req) === undefined
      ? `${m.type} without a request time`
      : (m as RicartAgrawalaMessage)
  }
  return `unknown message type ${String(m.type)}`
}
