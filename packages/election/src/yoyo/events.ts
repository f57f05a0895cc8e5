import type { NodeId } from '@sd/transport'
import type { ElectionEvent } from '../contract.js'

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
