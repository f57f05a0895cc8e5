import { intIn, isBoolean, isNodeId, messageParser, type NodeId } from '@sd/transport'

export type YoyoMessage =
  /** Set-up, to every neighbor: the transport names the sender, so the message is the id. */
  | { type: 'setup' }
  /** YO-, down an edge of the DAG: the smallest source id that reached the sender. */
  | { type: 'yo'; iteration: number; value: NodeId }
  /**
   * -YO, up the same edge: `yes` when the value it carried was the smallest the voter saw and no
   * NO came from below. A NO flips the edge; `prune` removes it instead (the vote still counts).
   */
  | { type: 'vote'; iteration: number; yes: boolean; prune: boolean }
  /** From the leader, flooded once through every edge of the graph (pruned ones too). */
  | { type: 'leader'; leader: NodeId; term: number }

const count = intIn(1, Number.MAX_SAFE_INTEGER)

/** The message, or why it is not one. */
export const parseMessage = messageParser<YoyoMessage>({
  setup: {},
  yo: { iteration: count, value: isNodeId },
  vote: { iteration: count, yes: isBoolean, prune: isBoolean },
  leader: { leader: isNodeId, term: count },
})
