import { intIn, isNodeId, isRecord, type NodeId } from '@sd/transport'
import type { ElectionEvent } from '../contract.js'

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

export type YoyoRole = 'source' | 'internal' | 'sink'

export type YoyoEvent =
  | ElectionEvent
  /** Set-up started (ids going out); then, per iteration, the node's role as YO- begins... */
  | { type: 'phase'; phase: 'setup' }
  | { type: 'phase'; phase: 'yo-'; iteration: number; role: YoyoRole }
  /** ...and -YO at this node: its value went down (or, at a sink, every value is in). */
  | { type: 'phase'; phase: '-yo'; iteration: number }
  /** This node answered NO to `neighbor`: the edge now points from this node to it. */
  | { type: 'flip'; iteration: number; neighbor: NodeId }
  /** This node asked `neighbor` to remove the edge between them. */
  | { type: 'prune'; iteration: number; neighbor: NodeId }
  /** A source got a NO: it is no longer a candidate. */
  | { type: 'defeated'; iteration: number }
  /** The node pruned itself out of the DAG; it waits for the leader's notice. */
  | { type: 'left'; iteration: number }
  /** The last source, alone in the DAG after `iterations` full iterations. */
  | { type: 'elected'; iterations: number }
  | { type: 'ignored'; from: NodeId; reason: string }

const count = intIn(1, Number.MAX_SAFE_INTEGER)

/** The message, or why it is not one. */
export function parseMessage(msg: unknown): YoyoMessage | string {
  if (!isRecord(msg)) return 'not an object'
  const m = msg
  switch (m.type) {
    case 'setup':
      return m as unknown as YoyoMessage
    case 'yo':
      return count(m.iteration) && isNodeId(m.value)
        ? (m as unknown as YoyoMessage)
        : 'malformed yo'
    case 'vote':
      return count(m.iteration) && typeof m.yes === 'boolean' && typeof m.prune === 'boolean'
        ? (m as unknown as YoyoMessage)
        : 'malformed vote'
    case 'leader':
      return isNodeId(m.leader) && count(m.term)
        ? (m as unknown as YoyoMessage)
        : 'malformed leader'
    default:
      return `unknown message type ${JSON.stringify(m.type)}`
  }
}
