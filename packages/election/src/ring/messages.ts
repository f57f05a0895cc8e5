import { isNonNegInt as count, isNodeId, isRecord, type NodeId } from '@sd/transport'
import type { ElectionEvent } from '../contract.js'

/** An ELECTION on its way round: the live members it went through, in ring order. */
export interface ElectionPass {
  type: 'election'
  /** Who it went through; `list[0]` started it. */
  list: NodeId[]
  /** Members of `list` that stand aside (a leader that resigned): they are not candidates. */
  out: NodeId[]
  /** The highest term any member of `list` had seen when it passed. */
  max: number
  /** Tells the initiator's current election from its older ones. */
  round: number
}

/** The result, circulated once from the member that closed the election. */
export interface CoordinatorPass {
  type: 'coordinator'
  leader: NodeId
  term: number
  /** Everyone the ELECTION went through, ascending: the ring from now on. */
  members: NodeId[]
  /** Who closed the election; the COORDINATOR stops when it is back there. */
  closer: NodeId
  /** Passes so far: one that went round without finding its closer (crashed) is dropped. */
  hops: number
}

export type Pass = ElectionPass | CoordinatorPass

export type RingMessage =
  /** Every pass carries `hop`, the sender's number for it, and is acknowledged. */
  | (Pass & { hop: number })
  | { type: 'ack'; hop: number }
  | { type: 'heartbeat'; term: number }
  /** The leader of `term` steps down. */
  | { type: 'resign'; term: number }
  /** Answer to a heartbeat of an older term: this is the leader now. */
  | { type: 'leader-is'; leader: NodeId; term: number }

export type RingEvent =
  | ElectionEvent
  /** A successor did not acknowledge a pass in time and is skipped. */
  | { type: 'skipped'; node: NodeId }
  | { type: 'ignored'; from: NodeId; reason: string }

const ids = (v: unknown): v is NodeId[] => Array.isArray(v) && v.every(isNodeId)

/** The message, or why it is not one. */
export function parseMessage(msg: unknown): RingMessage | string {
  if (!isRecord(msg)) return 'not an object'
  const m = msg
  switch (m.type) {
    case 'election':
      return count(m.hop) &&
        ids(m.list) &&
        m.list.length > 0 &&
        ids(m.out) &&
        count(m.max) &&
        count(m.round)
        ? (m as unknown as RingMessage)
        : 'malformed election'
    case 'coordinator':
      return count(m.hop) &&
        isNodeId(m.leader) &&
        count(m.term) &&
        ids(m.members) &&
        isNodeId(m.closer) &&
        count(m.hops)
        ? (m as unknown as RingMessage)
        : 'malformed coordinator'
    case 'ack':
      return count(m.hop) ? (m as unknown as RingMessage) : 'malformed ack'
    case 'heartbeat':
    case 'resign':
      return count(m.term) ? (m as unknown as RingMessage) : `malformed ${m.type}`
    case 'leader-is':
      return isNodeId(m.leader) && count(m.term)
        ? (m as unknown as RingMessage)
        : 'malformed leader-is'
    default:
      return `unknown message type ${JSON.stringify(m.type)}`
  }
}
