import type { NodeId } from '../ids.js'

/** Why an incoming datagram (or part of one) was thrown away. */
export const DROP_REASONS = [
  /** Larger than `maxDatagramBytes`, or announcing a message larger than `maxMessageBytes`. */
  'oversized',
  /** Shorter than its header says. */
  'truncated',
  /** Not our magic, unknown type or flags, impossible fields. */
  'malformed',
  /** Our magic but a wire version we do not speak. */
  'bad-version',
  /** A key is set and the datagram carries no MAC. */
  'unauthenticated',
  /** The MAC does not match (forged or corrupted), or a MAC arrived while no key is set. */
  'bad-mac',
  /** The sender id is not in the address book (and admission, if on, did not add it). */
  'unknown-sender',
  /** Addressed to another node id. */
  'wrong-destination',
  /** A packet number seen before (or older than the replay window) while a key is set. */
  'replayed',
  /** From an old incarnation of the sender, meant for an old incarnation of this node, or an unconfirmed one. */
  'stale-incarnation',
  /** A handshake answer that echoes no challenge of ours. */
  'unsolicited',
  /** Already received (retransmission or network duplicate). */
  'duplicate',
  /** Too far ahead of what the receive window can buffer; the sender will retransmit it. */
  'out-of-window',
  /**
   * A packet number, base or sequence number the peer cannot have sent in order: beyond what it can
   * have in flight, or among those it gave up. Not acknowledged; a handshake resynchronizes the link.
   */
  'implausible',
  /** The codec could not read the payload. */
  'undecodable',
  /** A fragmented message whose fragments did not all arrive in time. */
  'reassembly-timeout',
  /** Too many partial messages at once; the oldest was discarded. */
  'reassembly-overflow',
] as const
export type UdpDropReason = (typeof DROP_REASONS)[number]

/** What `onDrop` listeners receive. */
export interface UdpDropEvent {
  reason: UdpDropReason
  /** The claimed sender, when it could be read (and, with a key, authenticated). */
  from?: NodeId
  /** Where the datagram came from on the network. */
  address?: string
  port?: number
  bytes: number
}

/** Counters of a UDP transport; read a snapshot with `transport.stats`. */
export interface UdpStats {
  datagramsSent: number
  datagramsReceived: number
  bytesSent: number
  bytesReceived: number
  /** Messages accepted by `send`. */
  messagesSent: number
  /** Messages handed to `onMessage` handlers. */
  messagesDelivered: number
  retransmissions: number
  /** Standalone acknowledgements (most ride on data going the other way). */
  acksSent: number
  handshakes: number
  peerRestarts: number
  /**
   * Messages a restarted peer had not acknowledged, resent to its new incarnation. Some of them the
   * old incarnation may have delivered before it died (its acknowledgement was delayed or lost), so
   * across a restart a message can be delivered once per incarnation: summed over a cluster,
   * delivered messages stay within sent plus this.
   */
  resentAfterRestart: number
  peersUnreachable: number
  /** Unknown senders admission added to the address book (`peer-learned` signals). */
  peersLearned: number
  /** Unknown senders admission refused: by the `admit` predicate, or `maxLearnedPeers` was reached. */
  admissionsRefused: number
  /** Messages given up by the reliable link (the sum of `dropped` in peer-unreachable signals). */
  messagesAbandoned: number
  /** Sequence numbers a peer gave up on, skipped by this receiver. */
  skipped: number
  /**
   * Messages of a bundle dropped unread because an earlier message of the same bundle could not be
   * decoded (that one is counted in `dropped.undecodable`): a hostile bundle costs one failed decode.
   */
  bundledDropped: number
  /** Errors from the socket or from sending (treated as loss). */
  socketErrors: number
  /** Exceptions thrown by onMessage/onSignal/onDrop handlers (re-thrown asynchronously). */
  handlerErrors: number
  /** Bugs of the adapter caught while handling a datagram (also counted as malformed). Should stay 0. */
  internalErrors: number
  /** Dropped incoming datagrams, by reason. */
  dropped: Record<UdpDropReason, number>
  /** Sum of `dropped`. */
  droppedTotal: number
}

export function createStats(): UdpStats {
  const dropped = {} as Record<UdpDropReason, number>
  for (const reason of DROP_REASONS) dropped[reason] = 0
  return {
    datagramsSent: 0,
    datagramsReceived: 0,
    bytesSent: 0,
    bytesReceived: 0,
    messagesSent: 0,
    messagesDelivered: 0,
    retransmissions: 0,
    acksSent: 0,
    handshakes: 0,
    peerRestarts: 0,
    resentAfterRestart: 0,
    peersUnreachable: 0,
    peersLearned: 0,
    admissionsRefused: 0,
    messagesAbandoned: 0,
    skipped: 0,
    bundledDropped: 0,
    socketErrors: 0,
    handlerErrors: 0,
    internalErrors: 0,
    dropped,
    droppedTotal: 0,
  }
}

export function snapshotStats(stats: UdpStats): UdpStats {
  return { ...stats, dropped: { ...stats.dropped } }
}
