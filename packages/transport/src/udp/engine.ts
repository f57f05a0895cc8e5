import { MessageTooLargeError, UnknownNodeError } from '../errors.js'
import type { NodeId } from '../ids.js'
import { formatAddress, type UdpAddress } from './address.js'
import { EngineReceive } from './engine/receive.js'
import { PN_RENEW_AT } from './engine/transmit.js'
import { BackpressureError } from './errors.js'
import { Reassembler } from './fragments.js'
import { createPeerLink, type PeerLink } from './link/peer-link.js'
import type { OutMessage } from './link/send-queue.js'
import { encodeIdField, PacketType } from './wire/header.js'

export type { EngineEntropy, EngineSink } from './engine/transmit.js'

/** What one link looks like now, for diagnostics and tests. */
export interface LinkInfo {
  /** Our incarnation on this link. */
  incarnation: number
  /** The peer's confirmed incarnation, 0 while unknown. */
  peerIncarnation: number
  /** Smoothed round trip, ms (0 before the first sample). */
  srttMs: number
  /** Messages accepted by send and not yet acknowledged. */
  queuedMessages: number
  /** Transmissions in flight, not yet acknowledged nor declared lost. */
  packetsInFlight: number
}

/**
 * The UDP link layer as a pure state machine: datagrams, sends and clock readings in; datagrams,
 * deliveries, signals and timer deadlines out, through an `EngineSink`. No socket, no timer, no
 * clock and no global randomness inside, so the simulator can drive it deterministically.
 *
 * One class in layers, one file each: `engine/transmit.ts` (state, datagrams out),
 * `engine/lifecycle.ts` (pump, handshake, timers), `engine/receive.ts` (datagrams in), and here
 * the address book and `send`, the public surface.
 */
export class LinkEngine extends EngineReceive {
  /** Ids admitted from the network (not given by `setPeer`), bounded by `maxLearnedPeers`. */
  private readonly learned = new Set<NodeId>()

  // ---- address book ----

  get peerIds(): NodeId[] {
    return [...this.links.keys()]
  }

  hasPeer(id: NodeId): boolean {
    return this.links.has(id)
  }

  /** Adds a peer (a new link), or moves an existing one to a new address (its link is kept). */
  setPeer(id: NodeId, address: UdpAddress): void {
    const existing = this.links.get(id)
    if (existing) {
      existing.address = address
      return
    }
    const idField = encodeIdField(id)
    const o = this.options
    const reassembly = new Reassembler({
      maxMessageBytes: o.maxMessageBytes,
      maxPartial: o.reliable ? 1 : o.maxPartial,
      timeoutMs: o.reliable ? Number.POSITIVE_INFINITY : o.reassemblyTimeoutMs,
      onDiscard: (reason) => this.drop(reason, 0, id, undefined),
    })
    this.links.set(
      id,
      createPeerLink({
        id,
        idField,
        address,
        room: this.payloadRoom(idField, false),
        fragmentRoom: this.payloadRoom(idField, true), // fails early if the ids leave no room
        localInc: this.entropy.u32(),
        receiveWindow: o.receiveWindow,
        sendWindow: o.sendWindow,
        reassembly,
        retransmit: o.retransmit,
        // Not on the wire: the peer is assumed to delay its acks as we do (same group options).
        peerAckDelayMs: o.reliable ? o.maxAckDelayMs : 0,
      }),
    )
  }

  /** Forgets a peer; what was queued for it is abandoned (and counted). */
  removePeer(id: NodeId): boolean {
    const link = this.links.get(id)
    if (link === undefined) return false
    this.learned.delete(id) // its room goes back to admission
    this.stats.messagesAbandoned += link.queue.abandon()
    this.owed.delete(link)
    this.unsent.delete(link)
    this.links.delete(id)
    return true
  }

  /** Peers in the address book that admission added (and `removePeer` did not remove since). */
  get learnedPeers(): number {
    return this.learned.size
  }

  protected learn(id: NodeId, type: PacketType, source: unknown): PeerLink | undefined {
    // Only a datagram that opens a conversation: answers (HelloReply, Ack) from a stranger answer
    // nothing of ours. Never our own id: that would be a link to ourselves.
    if (type === PacketType.HelloReply || type === PacketType.Ack || id === this.self) return
    if (this.sink.admit === undefined) return
    if (this.learned.size >= this.options.maxLearnedPeers) {
      this.stats.admissionsRefused++
      return
    }
    const address = this.sink.admit(id, source)
    if (address === undefined) {
      this.stats.admissionsRefused++
      return
    }
    this.setPeer(id, address)
    this.learned.add(id)
    this.stats.peersLearned++
    this.sink.signal({ type: 'peer-learned', peer: id, address: formatAddress(address) })
    return this.links.get(id)
  }

  linkInfo(id: NodeId): LinkInfo | undefined {
    const link = this.links.get(id)
    if (link === undefined) return undefined
    return {
      incarnation: link.localInc,
      peerIncarnation: link.inc,
      srttMs: link.rtt.srtt,
      queuedMessages: link.queue.messages,
      packetsInFlight: link.recovery.inFlight,
    }
  }

  /** Messages accepted by send and not yet acknowledged, over every peer. */
  unacknowledged(): number {
    let total = 0
    for (const link of this.links.values()) total += link.queue.messages
    return total
  }

  /** Gives up everything still queued; returns what was abandoned, by peer. */
  abandonAll(): Array<{ peer: NodeId; messages: number }> {
    const out: Array<{ peer: NodeId; messages: number }> = []
    for (const link of this.links.values()) {
      const messages = link.queue.abandon()
      link.recovery.reset()
      if (messages > 0) out.push({ peer: link.id, messages })
      this.stats.messagesAbandoned += messages
    }
    return out
  }

  /** Stops for good: later input is ignored. */
  stop(): void {
    this.stopped = true
    this.owed.clear()
    this.unsent.clear()
    for (const link of this.links.values()) link.reassembly.clear()
  }

  // ---- sending ----

  /**
   * Queues `payload` for peer `to`. Throws UnknownNodeError (not in the address book),
   * MessageTooLargeError or BackpressureError; in each case nothing was queued.
   */
  send(to: NodeId, payload: Uint8Array, now: number): void {
    let link = this.links.get(to)
    if (link === undefined)
      throw new UnknownNodeError(to, `the address book of UDP node ${JSON.stringify(this.self)}`)
    if (link.nextPn >= PN_RENEW_AT) link = this.renew(link, now)
    const o = this.options
    if (payload.length > o.maxMessageBytes) {
      throw new MessageTooLargeError(payload.length, o.maxMessageBytes)
    }
    const queueing = o.reliable || link.inc === 0
    if (queueing) {
      const q = link.queue
      if (q.messages + 1 > o.maxQueuedMessages) {
        throw new BackpressureError(to, q.messages, q.bytes, `${o.maxQueuedMessages} messages`)
      }
      if (q.bytes + payload.length > o.maxQueuedBytes) {
        throw new BackpressureError(to, q.messages, q.bytes, `${o.maxQueuedBytes} bytes`)
      }
    }
    const message: OutMessage = { payload }
    const segments = this.segment(link, message)
    this.stats.messagesSent++
    if (!queueing) {
      for (const segment of segments) this.transmitUnreliable(link, segment)
      return
    }
    link.queue.enqueue(message, segments)
    if (!o.coalesce) {
      this.pump(link, now)
    } else if (!this.unsent.has(link)) {
      // Left for `flush` at the end of the turn, where what else the turn sends joins it.
      this.unsent.add(link)
      this.sink.flushSoon()
    }
  }

  /** Unreliable mode: discards partial messages older than the reassembly timeout. */
  expireReassembly(now: number): void {
    for (const link of this.links.values()) link.reassembly.expire(now)
  }
}
