/** One node of a trial, whatever the contender: bound at setup, started once the peers are known. */
import type { Mark, NodeSpec, View } from './election-protocol.js'

export interface ElectionNode {
  /** The UDP port it listens on (bound by `setup`). */
  readonly port: number
  /** Starts the election with the other nodes' 'host:port'; every change of view goes to `report`. */
  start(peers: Record<string, string>): void
  close(): Promise<void>
}

export type ViewReport = (view: Omit<View, 'trial' | 'id' | 'at'>) => void

/** One of the protocol's events, as it was emitted (ours only). */
export type MarkReport = (mark: Omit<Mark, 'trial' | 'id' | 'at'>) => void

export type NodeMaker = (
  spec: NodeSpec,
  report: ViewReport,
  mark: MarkReport,
) => Promise<ElectionNode>
