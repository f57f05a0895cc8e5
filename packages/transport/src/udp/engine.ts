import { InvalidArgumentError, MessageTooLargeError, UnknownNodeError } from '../errors.js'
import type { NodeId } from '../ids.js'
import type { TransportSignal } from '../transport.js'
import type { UdpAddress } from './address.js'
import type { Authenticator } from './auth.js'
import { BackpressureError } from './errors.js'
import { Reassembler, splitPayload } from './fragments.js'
import {
  createPeerLink,
  type Incoming,
  type PeerLink,
  RETIRED_INCARNATIONS,
  seenRecently,
} from './link/peer-link.js'
import { newSegment, type OutMessage, type OutSegment } from './link/send-queue.js'
import type { ResolvedOptions } from './options.js'
import { createStats, type UdpDropReason, type UdpStats } from './stats.js'
import {
  bodyBytes,
  bundleCount,
  bundlePart,
  type Datagram,
  decodeDatagram,
  encodeDatagram,
  encodeIdField,
  FIXED_HEADER_BYTES,
  type FragmentInfo,
  MAC_BYTES,
  type OutgoingHeader,
  PacketType,
} from './wire/header.js'

/** Fragment count travels in 16 bits. */
const MAX_FRAGMENTS = 0xffff
/**
 * Packet numbers travel in 48 bits: 2^48 datagrams last about 8.9 years at a million datagrams per
 * second on one link. Well before the wrap (2^24 numbers before, more than any one turn sends) the
 * link is renewed: a new incarnation of ours, numbered from 0, which the peer meets as a restart.
 */
const PN_RENEW_AT = 2 ** 48 - 2 ** 24
/**
 * Within one batch of input, an acknowledgement leaves after this many data datagrams instead of
 * waiting for the end of the batch: one lost acknowledgement must not stall a whole window.
 */
const ACK_EVERY = 8

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
}

/** Randomness the engine needs: unpredictable on real networks, seeded in the simulator. */
export interface EngineEntropy {
  /** A uniform non-zero 32-bit integer (incarnations, handshake nonces). */
  u32(): number
  /** A uniform number in [0, 1) (timer jitter). */
  unit(): number
}

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
 */
export class LinkEngine {
  readonly stats: UdpStats = createStats()
  private readonly links = new Map<NodeId, PeerLink>()
  private readonly owed = new Set<PeerLink>()
  private readonly selfField: Buffer
  private readonly macBytes: number
  private wakeAt = Number.POSITIVE_INFINITY
  private stopped = false
  private readonly jitter: () => number

  constructor(
    readonly self: NodeId,
    private readonly options: ResolvedOptions,
    private readonly auth: Authenticator | undefined,
    private readonly sink: EngineSink,
    private readonly entropy: EngineEntropy,
  ) {
    this.selfField = encodeIdField(self)
    this.macBytes = auth ? MAC_BYTES : 0
    this.jitter = () => this.entropy.unit()
  }

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
      }),
    )
  }

  /** Forgets a peer; what was queued for it is abandoned (and counted). */
  removePeer(id: NodeId): boolean {
    const link = this.links.get(id)
    if (link === undefined) return false
    this.stats.messagesAbandoned += link.queue.abandon()
    this.owed.delete(link)
    this.links.delete(id)
    return true
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
    this.pump(link, now)
  }

  /** Payload bytes that fit in one datagram to this peer. */
  private payloadRoom(idField: Uint8Array, fragmented: boolean): number {
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
  private segment(link: PeerLink, message: OutMessage): OutSegment[] {
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

  /** Sends what is lost, then what the window allows; or starts the handshake while the peer is unknown. */
  private pump(link: PeerLink, now: number): void {
    if (link.inc === 0) {
      if (link.queue.waiting.length > 0) this.startHandshake(link, now)
      return
    }
    const queue = link.queue
    if (!this.options.reliable) {
      const waiting = queue.waiting
      queue.abandon()
      for (const segment of waiting) this.transmitUnreliable(link, segment)
      return
    }
    // At most a window of retransmissions per round trip, whatever the acknowledgements said.
    while (queue.lost.length > 0 && link.recovery.takeRetransmission(now)) {
      const segment = queue.nextLost()
      if (segment === undefined) break
      this.stats.retransmissions++
      this.transmitData(link, segment, now)
    }
    // New data is held by sendWindow only, not by the congestion window: after an outage (a
    // partition that healed) the first new datagram is what reveals the losses at once; held
    // behind a shrunken window it would wait for a backed-off probe timeout (seconds).
    const sendWindow = this.options.sendWindow
    const receiveWindow = this.options.receiveWindow
    const room = link.room
    for (
      let segment = queue.launch(sendWindow, receiveWindow, room);
      segment;
      segment = queue.launch(sendWindow, receiveWindow, room)
    ) {
      this.transmitData(link, segment, now)
    }
    this.rearm(link)
  }

  private header(link: PeerLink, type: PacketType): OutgoingHeader {
    const pn = link.nextPn
    link.nextPn = pn + 1 // 48 bits: see PN_RENEW_AT
    if (pn === PN_RENEW_AT) this.sink.wake(0) // renewed on the timer, where no caller holds the link
    // Every field from the start: one object shape for every datagram, whatever its type.
    return {
      type,
      srcInc: link.localInc,
      dstInc: link.inc,
      pn,
      srcIdField: this.selfField,
      dstIdField: link.idField,
      seq: 0,
      base: 0,
      ack: undefined,
      nonce: 0,
      frag: undefined,
      bundle: false,
    }
  }

  private transmitData(link: PeerLink, segment: OutSegment, now: number): void {
    const h = this.header(link, PacketType.Data)
    h.seq = segment.seq
    h.base = link.queue.base()
    if (link.acks.owed) h.ack = link.acks.block() // piggybacked
    h.frag = segment.frag
    h.bundle = segment.bundled !== undefined
    this.emit(link, encodeDatagram(h, segment.payload, this.macBytes))
    link.recovery.onSent(h.pn, segment, now, this.jitter)
  }

  private transmitUnreliable(link: PeerLink, segment: OutSegment): void {
    const h = this.header(link, PacketType.Unreliable)
    h.frag = segment.frag
    this.emit(link, encodeDatagram(h, segment.payload, this.macBytes))
  }

  private transmitControl(link: PeerLink, type: PacketType, nonce: number, dstInc: number): void {
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

  private emit(link: PeerLink, datagram: Buffer): void {
    this.auth?.sign(datagram)
    this.stats.datagramsSent++
    this.stats.bytesSent += datagram.length
    this.sink.transmit(link.address, datagram)
  }

  // ---- handshake and incarnations ----

  /** Challenges the peer for its current incarnation (idempotent while one is outstanding). */
  private startHandshake(link: PeerLink, now: number): void {
    if (link.helloNonce !== 0) return
    link.helloNonce = this.entropy.u32()
    link.helloAttempts = 1
    this.stats.handshakes++
    this.sendHello(link, now)
  }

  private sendHello(link: PeerLink, now: number): void {
    link.helloDeadline = now + link.rtt.timeout(link.helloAttempts - 1, this.entropy.unit())
    this.transmitControl(link, PacketType.Hello, link.helloNonce, link.inc)
    this.rearm(link)
  }

  /**
   * Adopts `inc` as the peer's incarnation; a different one than before means it restarted (or
   * forgot us). `confirmedAt` is the packet number of the handshake answer that proved it: with a
   * key, nothing older from that incarnation is accepted afterwards.
   */
  private commit(link: PeerLink, inc: number, now: number, confirmedAt: number | undefined): void {
    link.helloNonce = 0
    link.helloAttempts = 0
    link.helloDeadline = Number.POSITIVE_INFINITY
    const restarted = link.inc !== 0
    if (restarted) {
      link.retired.push(link.inc)
      if (link.retired.length > RETIRED_INCARNATIONS) link.retired.shift()
      // New incarnation, new link: what it had not acknowledged is re-cut and resent from seq 0.
      const unacknowledged = link.queue.takeUnacknowledged()
      for (const message of unacknowledged) {
        link.queue.enqueue(message, this.segment(link, message))
      }
      link.recovery.reset()
      link.recv.reset()
      link.acks.reset()
      link.reassembly.clear()
      this.owed.delete(link)
      this.stats.peerRestarts++
    }
    link.inc = inc
    if (confirmedAt !== undefined) {
      link.replay.resetAt(confirmedAt)
    } else {
      link.replay.reset()
      for (const seen of link.unconfirmed) if (seen.inc === inc) link.replay.accept(seen.pn)
    }
    link.unconfirmed = []
    if (restarted) this.sink.signal({ type: 'peer-restarted', peer: link.id })
    if (this.links.get(link.id) === link && !this.stopped) this.pump(link, now)
    this.rearm(link)
  }

  /** A handshake answer of the peer's current incarnation to our outstanding challenge: fresh by construction. */
  private answersChallenge(link: PeerLink, d: Datagram): boolean {
    return (
      d.type === PacketType.HelloReply &&
      link.helloNonce !== 0 &&
      d.nonce === link.helloNonce &&
      d.dstInc === link.localInc
    )
  }

  // ---- timers ----

  /** Recomputes the link's deadline and asks to be woken for it when it is the earliest. */
  private rearm(link: PeerLink): void {
    const hello = link.helloNonce !== 0 ? link.helloDeadline : Number.POSITIVE_INFINITY
    // Losses waiting for the next round's retransmission budget.
    const resend = link.queue.lost.length > 0 ? link.recovery.roundEndsAt : Number.POSITIVE_INFINITY
    const at = Math.min(link.recovery.deadline(), hello, resend)
    link.deadline = at
    if (at < this.wakeAt) {
      this.wakeAt = at
      this.sink.wake(at)
    }
  }

  /** Time has come (the sink's wake-up): runs every link's due timers. */
  onTimer(now: number): void {
    if (this.stopped) return
    this.wakeAt = Number.POSITIVE_INFINITY
    let next = Number.POSITIVE_INFINITY
    for (const old of [...this.links.values()]) {
      const link = old.nextPn >= PN_RENEW_AT ? this.renew(old, now) : old
      if (link.deadline <= now) this.expire(link, now)
      if (link.deadline < next) next = link.deadline
    }
    if (next < this.wakeAt) {
      this.wakeAt = next
      this.sink.wake(next)
    }
  }

  private expire(link: PeerLink, now: number) {
    const { maxAttempts } = this.options.retransmit
    if (link.helloNonce !== 0 && link.helloDeadline <= now) {
      if (link.helloAttempts >= maxAttempts) return this.giveUp(link)
      link.helloAttempts++
      this.sendHello(link, now)
    }
    const recovery = link.recovery
    if (recovery.lossTime <= now) {
      recovery.detectLost(now, link.queue.lost)
      this.pump(link, now)
    } else if (link.queue.lost.length > 0 && recovery.roundEndsAt <= now) {
      this.pump(link, now) // a new round: the next losses may be resent
    } else if (recovery.ptoAt <= now) {
      const probe = link.queue.oldestUnacked()
      if (probe === undefined) {
        recovery.pruneAcked(now, this.jitter)
      } else {
        if (recovery.ptoCount + 1 >= maxAttempts) return this.giveUp(link)
        recovery.onProbeTimeout(now, this.jitter)
        this.stats.retransmissions++
        this.transmitData(link, probe, now)
      }
    }
    this.rearm(link)
  }

  /**
   * Replaces a link whose packet numbers near 2^48 by a new one (new incarnation of ours, numbers
   * from 0), as removePeer + setPeer would, keeping what was not acknowledged: it is re-sent on the
   * new link, which the peer meets as our restart (so across it delivery is at least once).
   */
  private renew(link: PeerLink, now: number): PeerLink {
    const messages = link.queue.takeUnacknowledged()
    link.recovery.reset()
    link.reassembly.clear()
    this.owed.delete(link)
    this.links.delete(link.id)
    this.setPeer(link.id, link.address)
    const fresh = this.links.get(link.id)!
    fresh.retired.push(...link.retired)
    for (const message of messages) fresh.queue.enqueue(message, this.segment(fresh, message))
    this.pump(fresh, now)
    return fresh
  }

  /** Retries ran out: drop what is queued for the peer and say so. Later sends start afresh. */
  private giveUp(link: PeerLink): void {
    link.helloNonce = 0
    link.helloDeadline = Number.POSITIVE_INFINITY
    const dropped = link.queue.abandon()
    link.recovery.reset()
    link.deadline = Number.POSITIVE_INFINITY
    this.stats.peersUnreachable++
    this.stats.messagesAbandoned += dropped
    this.sink.signal({ type: 'peer-unreachable', peer: link.id, dropped })
  }

  /** End of a batch of input: acknowledgements that found no data to ride on go alone. */
  flush(): void {
    if (this.stopped) return
    for (const link of this.owed) {
      if (link.acks.owed && link.inc !== 0 && this.links.get(link.id) === link) {
        this.transmitControl(link, PacketType.Ack, 0, link.inc)
      }
    }
    this.owed.clear()
  }

  /** Unreliable mode: discards partial messages older than the reassembly timeout. */
  expireReassembly(now: number): void {
    for (const link of this.links.values()) link.reassembly.expire(now)
  }

  // ---- receiving ----

  /** One datagram from the network; `source` is passed back with drops and deliveries. */
  receive(buf: Buffer, now: number, source?: unknown): void {
    if (this.stopped) return
    this.stats.datagramsReceived++
    this.stats.bytesReceived += buf.length
    try {
      this.accept(buf, now, source)
    } catch {
      // A bug of ours must not become a crash: the datagram is lost, and counted.
      this.stats.internalErrors++
      this.drop('malformed', buf.length, undefined, source)
    }
  }

  /** Counts a dropped datagram (or message) and tells the sink. */
  drop(reason: UdpDropReason, bytes: number, from: NodeId | undefined, source: unknown): void {
    this.stats.dropped[reason]++
    this.stats.droppedTotal++
    this.sink.dropped(reason, bytes, from, source)
  }

  private accept(buf: Buffer, now: number, source: unknown) {
    const size = buf.length
    if (size > this.options.maxDatagramBytes) return this.drop('oversized', size, undefined, source)
    const d = decodeDatagram(buf)
    if (typeof d === 'string') return this.drop(d, size, undefined, source)
    // Nothing in the header is trusted before the MAC checks out.
    if (this.auth) {
      if (d.mac === undefined) return this.drop('unauthenticated', size, undefined, source)
      if (!this.auth.verify(buf, d.signedLength))
        return this.drop('bad-mac', size, undefined, source)
    } else if (d.mac !== undefined) {
      return this.drop('bad-mac', size, undefined, source)
    }
    if (d.to !== this.self) return this.drop('wrong-destination', size, d.from, source)
    const link = this.links.get(d.from)
    if (link === undefined) return this.drop('unknown-sender', size, d.from, source)
    if (link.retired.includes(d.srcInc)) return this.drop('stale-incarnation', size, d.from, source)
    const known = d.srcInc === link.inc
    // Replay protection needs the key: without it anyone can forge packet numbers and poison the window.
    if (this.auth) {
      if (!known) {
        if (seenRecently(link, d.srcInc, d.pn)) return this.drop('replayed', size, d.from, source)
      } else if (!this.answersChallenge(link, d)) {
        const verdict = link.replay.offer(d.pn)
        if (verdict !== 'fresh') {
          // Far outside the window, either the peer lost many datagrams in a row or someone moved
          // the window: a fresh handshake answer tells (see ReplayWindow.resync).
          if (verdict !== 'seen') this.startHandshake(link, now)
          const reason = verdict === 'too-far' ? 'implausible' : 'replayed'
          return this.drop(reason, size, d.from, source)
        }
      }
    }

    if (d.type === PacketType.Hello) {
      // Every challenge is answered: the answer is no larger than the challenge and goes to the
      // address book, so answering cannot amplify, and no flood can starve a real peer's handshake.
      this.transmitControl(link, PacketType.HelloReply, d.nonce, d.srcInc)
      // A new incarnation talking to us: confirm it with our own challenge before resetting anything.
      if (!known && link.inc !== 0) this.startHandshake(link, now)
      return
    }
    if (d.type === PacketType.HelloReply) {
      if (d.dstInc !== link.localInc || link.helloNonce === 0 || d.nonce !== link.helloNonce) {
        return this.drop('unsolicited', size, d.from, source)
      }
      if (!known) return this.commit(link, d.srcInc, now, d.pn)
      link.helloNonce = 0
      link.helloAttempts = 0
      // Sent after everything the peer had sent before: its number and its next base are believed
      // whatever their distance (an outage may have cost many datagrams and several give-ups).
      if (this.auth) link.replay.resync(d.pn)
      link.recv.allowSkip()
      this.pump(link, now)
      this.rearm(link)
      return
    }
    // Data and acks must be meant for this very link of ours.
    if (d.dstInc !== link.localInc) {
      this.drop('stale-incarnation', size, d.from, source)
      this.startHandshake(link, now) // so the peer learns our incarnation
      return
    }
    if (!known) {
      if (link.inc !== 0) {
        // Possibly a restart, possibly a late datagram: only a fresh handshake answer decides.
        this.drop('stale-incarnation', size, d.from, source)
        this.startHandshake(link, now)
        return
      }
      // First contact: it learned our incarnation from our answer to its challenge.
      this.commit(link, d.srcInc, now, undefined)
    }
    switch (d.type) {
      case PacketType.Data:
        return this.receiveData(link, d, now, source)
      case PacketType.Ack:
        return this.receiveAck(link, d.ack!, now)
      case PacketType.Unreliable:
        return this.receivePayload(link, d.payload, d.frag, false, now, source)
    }
  }

  private receiveAck(link: PeerLink, ranges: number[], now: number): void {
    if (!this.options.reliable) return
    const recovery = link.recovery
    const newly = recovery.onAck(ranges, link.nextPn - 1, now, this.jitter, link.queue.lost)
    if (newly < 0) return // names packets never sent: ignored
    link.queue.acknowledged(newly)
    link.queue.release()
    this.pump(link, now)
  }

  private receiveData(link: PeerLink, d: Datagram, now: number, source: unknown) {
    if (!this.options.reliable) {
      // Mixed modes in one group: accept the payload, skip the link.
      return this.receivePayload(link, d.payload, d.frag, d.bundle, now, source)
    }
    if (d.ack !== undefined) this.receiveAck(link, d.ack, now)
    // Refused content is not acknowledged, so the sender sends it again.
    const refused = link.recv.refusal(d.seq, d.base)
    if (refused !== undefined) {
      // A base beyond what the peer can have in flight: a fresh handshake answer vouches for the next one.
      if (refused === 'implausible') this.startHandshake(link, now)
      return this.drop(refused, d.signedLength, link.id, source)
    }
    link.acks.record(d.pn)
    if (link.recv.isNext(d.seq, d.base)) {
      // The common case, in order with nothing to skip: no buffering, no callbacks.
      link.recv.advance()
      this.receivePayload(link, d.payload, d.frag, d.bundle, now, source)
      if (link.recv.buffered > 0) {
        link.recv.drain((item) =>
          this.receivePayload(link, item.payload, item.frag, item.bundle, now, source),
        )
      }
    } else {
      this.receiveOutOfOrder(link, d, now, source)
    }
    // A handler that answered at once has carried the ack on its data; otherwise it goes alone,
    // now if many datagrams wait for it, else at the end of the batch.
    if (!link.acks.owed || this.stopped) return
    if (link.acks.unreported >= ACK_EVERY)
      return this.transmitControl(link, PacketType.Ack, 0, link.inc)
    this.owed.add(link)
    this.sink.flushSoon()
  }

  /** Early, late or after a gap the sender gave up on: through the reorder buffer. */
  private receiveOutOfOrder(link: PeerLink, d: Datagram, now: number, source: unknown): void {
    const incoming: Incoming = { payload: d.payload, frag: d.frag, bundle: d.bundle }
    const refused = link.recv.receive(
      d.seq,
      d.base,
      incoming,
      (item) => this.receivePayload(link, item.payload, item.frag, item.bundle, now, source),
      (count) => {
        this.stats.skipped += count
        link.reassembly.clear()
      },
    )
    if (refused) this.drop(refused, d.signedLength, link.id, source)
  }

  /** A payload in order (or unreliable): reassemble or unbundle, then hand it out. */
  private receivePayload(
    link: PeerLink,
    payload: Uint8Array,
    frag: FragmentInfo | undefined,
    bundle: boolean,
    now: number,
    source: unknown,
  ) {
    if (this.stopped) return
    if (bundle) {
      const count = bundleCount(payload)
      if (count === 0) return this.drop('malformed', payload.length, link.id, source)
      // One view at a time: a bundle refused early costs no object per message.
      for (let i = 0, at = 0; i < count; i++) {
        if (this.stopped || this.links.get(link.id) !== link) return
        const part = bundlePart(payload, at)
        at += 2 + part.length
        if (this.sink.deliver(link.id, part, source) === false) {
          // A message a genuine sender's codec would have read failed: the bundle is hostile, and
          // reading on would cost a failed decode per message. Dropped whole, counted.
          this.stats.bundledDropped += count - i - 1
          return
        }
      }
      return
    }
    let bytes = payload
    if (frag !== undefined) {
      const whole = link.reassembly.add(frag, payload, now)
      if (whole === undefined) return
      if (typeof whole === 'string') return this.drop(whole, payload.length, link.id, source)
      bytes = whole
    }
    this.sink.deliver(link.id, bytes, source)
  }
}
