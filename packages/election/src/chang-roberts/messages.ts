import { isNonNegInt as count, isNodeId, messageParser, type NodeId } from '@sd/transport'

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

/** The message, or why it is not one. */
export const parseMessage = messageParser<ChangRobertsMessage>({
  election: { candidate: isNodeId, max: count },
  elected: { leader: isNodeId, term: count },
  heartbeat: { term: count },
  resign: { term: count },
  'leader-is': { leader: isNodeId, term: count },
})
