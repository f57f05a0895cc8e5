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
   * An unknown sender was admitted to the address book at `address` ('host:port'), as the UDP
   * adapter's `admit` option allows: it can now be sent to.
   */
  | { type: 'peer-learned'; peer: NodeId; address: string }
  /**
   * Raised by the protocol runtime, not by a transport: the protocol sent to an id the transport
   * cannot reach (`UnknownNodeError`); those `dropped` messages of the step were not sent.
   */
  | { type: 'unknown-peer'; peer: NodeId; dropped: number }

/**
 * What every adapter offers: send to a node by id, receive from any node.
 * Unless an adapter says otherwise, links are reliable and FIFO per pair of nodes.
 * `send` throws `UnknownNodeError` for an id it cannot reach and `TransportClosedError` after `close()`.
 * The protocol runtime (`runProtocol`) catches the first: a protocol's send to an unreachable id is
 * dropped and told to it as an `unknown-peer` signal, so no step throws for it. Direct callers of
 * `send` still get the error.
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
