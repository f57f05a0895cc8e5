import { isNonNegInt as count, isNodeId, isRecord, type NodeId } from '@sd/transport'
import type { ElectionEvent } from '../contract.js'

export type ChangRobertsMessage =
  /** The best candidate seen so far on this way round; `max`, the highest term it passed. */
  | { type: 'election'; candidate: NodeId; max: number }
  /** The winner, once round the ring. */
  | { type: 'elected'; leader: NodeId; term: number }
  | { type: 'heartbeat'; term: number }
  /** The leader of `term` steps down. */
  | { type: 'resign'; term: number }
  /** Answer to a heartbeat of an older term: this is the leader now. */
  | { type: 'leader-is'; leader: NodeId; term: number }

export type ChangRobertsEvent = ElectionEvent | { type: 'ignored'; from: NodeId; reason: string }

/** The message, or why it is not one. */
export function parseMessage(msg: unknown): ChangRobertsMessage | string {
  if (!isRecord(msg)) return 'not an object'
  const m = msg
  switch (m.type) {
    case 'election':
      return isNodeId(m.candidate) && count(m.max)
        ? (m as unknown as ChangRobertsMessage)
        : 'malformed election'
    case 'elected':
    case 'leader-is':
      return isNodeId(m.leader) && count(m.term)
        ? (m as unknown as ChangRobertsMessage)
        : `malformed ${m.type}`
    case 'heartbeat':
    case 'resign':
      return count(m.term) ? (m as unknown as ChangRobertsMessage) : `malformed ${m.type}`
    default:
      return `unknown message type ${JSON.stringify(m.type)}`
  }
}
