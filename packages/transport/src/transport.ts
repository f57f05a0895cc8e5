import type { NodeId } from './ids.js'

export type Unsubscribe = () => void
export type MessageHandler<Msg> = (from: NodeId, msg: Msg) => void

/** Out-of-band news from a transport about its peers. */
export type TransportSignal =
  /** The reliable link gave up on this peer; `dropped` messages were not delivered. */
  | { type: 'peer-unreachable'; peer: NodeId; dropped: number }
  /** The peer came back as a new incarnation (it restarted); link state was reset. */
  | { type: 'peer-restarted'; peer: NodeId }

/**
 * What every adapter offers: send to a node by id, receive from any node.
 * Unless an adapter says otherwise, links are reliable and FIFO per pair of nodes.
 * `send` throws `UnknownNodeError` for an id it cannot reach and `TransportClosedError` after `close()`.
 */
export interface Transport<Msg = unknown> {
  readonly self: NodeId
  readonly closed: boolean
  send(to: NodeId, msg: Msg): void
  onMessage(handler: MessageHandler<Msg>): Unsubscribe
  onSignal?(handler: (signal: TransportSignal) => void): Unsubscribe
  /**
   * Frees what the transport holds. Idempotent. Adapters may resolve with a report of their own
   * (the UDP adapter says which messages were never acknowledged).
   */
  close(): Promise<unknown>
}
