/**
 * The bottom layer of the UDP link engine (`../engine.ts`): its state, and what puts datagrams on
 * the wire (cutting messages into segments, headers, data, unreliable and control datagrams,
 * signing) and asks the sink for a wake-up. No decision of the link is taken here.
 */
import { InvalidArgumentError, MessageTooLargeError } from '../../errors.js'
import type { NodeId } from '../../ids.js'
import type { TransportSignal } from '../../transport.js'
import type { UdpAddress } from '../address.js'
import type { Authenticator } from '../auth.js'
import { splitPayload } from '../fragments.js'
import type { PeerLink } from '../link/peer-link.js'
import { newSegment, type OutMessage, type OutSegment } from '../link/send-queue.js'
import type { ResolvedOptions } from '../options.js'
import { createStats, type UdpDropReason, type UdpStats } from '../stats.js'
import {
  bodyBytes,
  encodeDatagram,
  encodeIdField,
  FIXED_HEADER_BYTES,
  MAC_BYTES,
  type OutgoingHeader,
  PacketType,
} from '../wire/header.js'

/** Fragment count travels in 16 bits. */
const MAX_FRAGMENTS = 0xffff
/**
 * Packet numbers travel in 48 bits: 2^48 datagrams last about 8.9 years at a million datagrams per
 * second on one link. Well before the wrap (2^24 numbers before, more than any one turn sends) the
 * link is renewed: a new incarnation of ours, numbered from 0, which the peer meets as a restart.
 */
export const PN_RENEW_AT = 2 ** 48 - 2 ** 24

/** Where the engine's effects go. The socket driver implements it; so does the simulator harness. */
export interface EngineSink {
  /** Put this datagram on the wire to `address`. */
  transmit(address: UdpAddress, datagram: Buffer): void
  /**
   * A whole message from `from`, in order (reliable) or as it came (unreliable). Returns false
   * when the message could not be read (the sink counted it): the rest of its bundle is dropped.
   */
  deliver(from: NodeId, payload: Uint8Array, source: unknown): boolean | undefined
  signal(signal: TransportSignal): void
  /** A datagram was dropped (already counted in `stats`); for listeners. */
  dropped(reason: UdpDropReason, bytes: number, from: NodeId | undefined, source: unknown): void
  /** Call `onTimer` no later than `at`. */
  wake(at: number): void
  /** Call `flush` once the current batch of input is handled (acknowledgements are owed). */
  flushSoon(): void
  /**
   * Admission (`admit` of the options): a datagram from `id`, not in the address book, passed the
   * MAC; where to reach it if it may join, else undefined. Absent: unknown senders are dropped.
   */
  admit?(id: NodeId, source: unknown): UdpAddress | undefined
}

/** Randomness the engine needs: unpredictable on real networks, seeded in the simulator. */
export interface EngineEntropy {
  /** A uniform non-zero 32-bit integer (incarnations, handshake nonces). */
  u32(): number
  /** A uniform number in [0, 1) (timer jitter). */
  unit(): number
}

/** The engine's state and its output side; the layers above decide when to send what. */
export abstract class EngineTransmit {
  readonly stats: UdpStats = createStats()
  protected readonly links = new Map<NodeId, PeerLink>()
  protected readonly owed = new Set<PeerLink>()
  /** Links with messages that wait for the end of the turn (`coalesce`), sent by `flush`. */
  protected readonly unsent = new Set<PeerLink>()
  protected readonly selfField: Buffer
  protected readonly macBytes: number
  protected wakeAt = Number.POSITIVE_INFINITY
  protected stopped = false
  protected readonly jitter: () => number
  /** The header being written (see `header`); every field from the start, one object shape. */
  private readonly scratch: OutgoingHeader

  constructor(
    readonly self: NodeId,
    protected readonly options: ResolvedOptions,
    protected readonly auth: Authenticator | undefined,
    protected readonly sink: EngineSink,
    protected readonly entropy: EngineEntropy,
  ) {
    this.selfField = encodeIdField(self)
    this.macBytes = auth ? MAC_BYTES : 0
    this.jitter = () => this.entropy.unit()
    this.scratch = {
      type: PacketType.Data,
      srcInc: 0,
      dstInc: 0,
      pn: 0,
      srcIdField: this.selfField,
      dstIdField: this.selfField,
      seq: 0,
      base: 0,
      ack: undefined,
      nonce: 0,
      frag: undefined,
      bundle: false,
    }
  }

  /** Payload bytes that fit in one datagram to this peer. */
  protected payloadRoom(idField: Uint8Array, fragmented: boolean): number {
    const overhead =
      FIXED_HEADER_BYTES +
      this.selfField.length +
      idField.length +
      bodyBytes(this.options.reliable ? PacketType.Data : PacketType.Unreliable, fragmented) +
      this.macBytes
    const room = this.options.maxDatagramBytes - overhead
    if (room < 64) {
      throw new InvalidArgumentError(
        `ids leave only ${room} payload bytes per datagram: use shorter ids or a larger maxDatagramBytes`,
      )
    }
    return room
  }

  /** Cuts a message into datagram-sized segments (one when it fits). */
  protected segment(link: PeerLink, message: OutMessage): OutSegment[] {
    const payload = message.payload
    if (payload.length <= link.room) return [newSegment(payload, undefined, message, true)]
    const parts = splitPayload(payload, link.fragmentRoom)
    if (parts.length > MAX_FRAGMENTS) {
      throw new MessageTooLargeError(payload.length, MAX_FRAGMENTS * link.fragmentRoom)
    }
    const msgId = link.nextMsgId
    link.nextMsgId = (link.nextMsgId + 1) >>> 0
    return parts.map((part, index) =>
      newSegment(part, { msgId, index, count: parts.length }, message, index === parts.length - 1),
    )
  }

  /**
   * The header of the next datagram on `link`. One object per engine, rewritten for every
   * datagram: encodeDatagram reads it at once and nothing keeps it, so no object per datagram.
   */
  protected header(link: PeerLink, type: PacketType): OutgoingHeader {
    const pn = link.nextPn
    link.nextPn = pn + 1 // 48 bits: see PN_RENEW_AT
    if (pn === PN_RENEW_AT) this.sink.wake(0) // renewed on the timer, where no caller holds the link
    const h = this.scratch
    h.type = type
    h.srcInc = link.localInc
    h.dstInc = link.inc
    h.pn = pn
    h.dstIdField = link.idField
    h.seq = 0
    h.base = 0
    h.ack = undefined
    h.nonce = 0
    h.frag = undefined
    h.bundle = false
    return h
  }

  protected transmitData(link: PeerLink, segment: OutSegment, now: number): void {
    const h = this.header(link, PacketType.Data)
    h.seq = segment.seq
    h.base = link.queue.base()
    if (link.acks.owed) h.ack = link.acks.block() // piggybacked
    h.frag = segment.frag
    h.bundle = segment.bundled !== undefined
    const pn = h.pn // read before emit: the sink may send again, rewriting the header
    this.emit(link, encodeDatagram(h, segment.payload, this.macBytes))
    link.recovery.onSent(pn, segment, now, this.jitter)
  }

  protected transmitUnreliable(link: PeerLink, segment: OutSegment): void {
    const h = this.header(link, PacketType.Unreliable)
    h.frag = segment.frag
    this.emit(link, encodeDatagram(h, segment.payload, this.macBytes))
  }

  protected transmitControl(link: PeerLink, type: PacketType, nonce: number, dstInc: number): void {
    const h = this.header(link, type)
    h.dstInc = dstInc
    if (type === PacketType.Ack) {
      h.ack = link.acks.block()
      this.stats.acksSent++
    } else {
      h.nonce = nonce
    }
    this.emit(link, encodeDatagram(h, undefined, this.macBytes))
  }

  protected emit(link: PeerLink, datagram: Buffer): void {
    this.auth?.sign(datagram)
    this.stats.datagramsSent++
    this.stats.bytesSent += datagram.length
    this.sink.transmit(link.address, datagram)
  }

  /** Recomputes the link's deadline and asks to be woken for it when it is the earliest. */
  protected rearm(link: PeerLink): void {
    const hello = link.helloNonce !== 0 ? link.helloDeadline : Number.POSITIVE_INFINITY
    // Losses waiting for the next round's retransmission budget.
    const resend = link.queue.lost.length > 0 ? link.recovery.roundEndsAt : Number.POSITIVE_INFINITY
    // A held acknowledgement (delayed, waiting for data to ride on): Infinity when none.
    const at = Math.min(link.recovery.deadline(), hello, resend, link.acks.dueAt)
    link.deadline = at
    if (at < this.wakeAt) {
      this.wakeAt = at
      this.sink.wake(at)
    }
  }

  /** Counts a dropped datagram (or message) and tells the sink. */
  drop(reason: UdpDropReason, bytes: number, from: NodeId | undefined, source: unknown): void {
    this.stats.dropped[reason]++
    this.stats.droppedTotal++
    this.sink.dropped(reason, bytes, from, source)
  }
}
