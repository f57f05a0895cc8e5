import { arrayOf, isNonNegInt as count, isNodeId, messageParser, type NodeId } from '@sd/transport'

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

const ids = arrayOf(isNodeId)

/** The message, or why it is not one. */
export const parseMessage = messageParser<RingMessage>({
  election: { hop: count, list: arrayOf(isNodeId, { min: 1 }), out: ids, max: count, round: count },
  coordinator: {
    hop: count,
    leader: isNodeId,
    term: count,
    members: ids,
    closer: isNodeId,
    hops: count,
  },
  ack: { hop: count },
  heartbeat: { term: count },
  resign: { term: count },
  'leader-is': { leader: isNodeId, term: count },
})
