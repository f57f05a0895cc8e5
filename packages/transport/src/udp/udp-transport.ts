import { randomInt } from 'node:crypto'
import type { RemoteInfo, Socket } from 'node:dgram'
import {
  InvalidArgumentError,
  MessageTooLargeError,
  TransportClosedError,
  UnknownNodeError,
} from '../errors.js'
import type { NodeId } from '../ids.js'
import type { MessageHandler, Transport, TransportSignal, Unsubscribe } from '../transport.js'
import { type Family, type PeerAddress, parseAddress, type UdpAddress } from './address.js'
import { Authenticator } from './auth.js'
import { type Codec, jsonCodec } from './codec.js'
import { BackpressureError } from './errors.js'
import { Reassembler, splitPayload } from './fragments.js'
import type { ResolvedOptions, UdpTransportOptions } from './options.js'
import {
  createPeerState,
  type Incoming,
  type PeerState,
  RETIRED_INCARNATIONS,
  seenRecently,
} from './peer.js'
import type { OutMessage, OutSegment } from './reliable-link.js'
import { RttEstimator } from './rtt.js'
import {
  createStats,
  snapshotStats,
  type UdpDropEvent,
  type UdpDropReason,
  type UdpStats,
} from './stats.js'
import {
  bodyBytes,
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
/** Answers to handshake challenges from one peer, at most one per this many ms. */
const REPLY_INTERVAL_MS = 5

/** A `Transport` over UDP. Build it with `createUdpTransport` (create.ts). */
export class UdpTransport<Msg = unknown> implements Transport<Msg> {
  readonly self: NodeId
  /** This run's random incarnation number, sent in every datagram; a restart picks a new one. */
  readonly incarnation: number
  private readonly socket: Socket
  private readonly family: Family
  private readonly options: ResolvedOptions
  private readonly codec: Codec<Msg>
  private readonly auth: Authenticator | undefined
  private readonly macBytes: number
  private readonly selfField: Buffer
  private readonly peerStates = new Map<NodeId, PeerState>()
  private readonly counters: UdpStats = createStats()
  private handlers: MessageHandler<Msg>[] = []
  private readonly signalHandlers = new Set<(signal: TransportSignal) => void>()
  private readonly dropListeners = new Set<(event: UdpDropEvent) => void>()
  private readonly owedAcks = new Set<PeerState>()
  private selfQueue: Msg[] = []
  private flushHandle: ReturnType<typeof setImmediate> | undefined
  private sweepTimer: ReturnType<typeof setInterval> | undefined
  private nextPn = 0
  private isClosed = false
  private closing: Promise<void> | undefined

  /** @internal use `createUdpTransport` */
  constructor(
    socket: Socket,
    family: Family,
    options: UdpTransportOptions<Msg>,
    resolved: ResolvedOptions,
  ) {
    this.socket = socket
    this.family = family
    this.self = options.id
    this.selfField = encodeIdField(options.id)
    this.options = resolved
    this.codec = options.codec ?? (jsonCodec as Codec<Msg>)
    this.auth =
      options.key === undefined ? undefined : new Authenticator(options.key, options.hmacEngine)
    this.macBytes = this.auth ? MAC_BYTES : 0
    this.incarnation = randomInt(1, 0x1_0000_0000)
    for (const [id, address] of peerEntries(options.peers)) this.setPeer(id, address)
    socket.on('message', (buf, rinfo) => this.onDatagram(buf, rinfo))
    // Socket errors (ICMP unreachable reported on send, buffer full...) are loss, never a crash.
    socket.on('error', () => {
      this.counters.socketErrors++
    })
    if (!resolved.reliable) {
      const every = Math.min(1000, resolved.reassemblyTimeoutMs)
      this.sweepTimer = setInterval(() => this.sweepReassembly(), every)
      this.sweepTimer.unref()
    }
  }

  get closed(): boolean {
    return this.isClosed
  }

  /** The bound address; `port` is the real one when bound to port 0. */
  get address(): UdpAddress & { family: 'IPv4' | 'IPv6' } {
    const a = this.socket.address()
    return { host: a.address, port: a.port, family: a.family === 'IPv6' ? 'IPv6' : 'IPv4' }
  }

  /** A snapshot of the counters. */
  get stats(): UdpStats {
    return snapshotStats(this.counters)
  }

  /** Ids in the address book. */
  get peers(): NodeId[] {
    return [...this.peerStates.keys()]
  }

  /**
   * Adds a peer, or moves an existing one to a new address (its link state is kept).
   * An entry for this node's own id is ignored, so all nodes can share one address book.
   */
  setPeer(id: NodeId, address: PeerAddress): void {
    if (this.isClosed) throw new TransportClosedError(this.self, `set peer ${JSON.stringify(id)}`)
    const parsed = parseAddress(address, this.family, `address of ${JSON.stringify(id)}`)
    // One address book can serve every node: the entry for this node itself is checked, then ignored.
    if (id === this.self) return
    const existing = this.peerStates.get(id)
    if (existing) {
      existing.address = parsed
      return
    }
    const idField = encodeIdField(id)
    const room = this.payloadRoom(idField, false)
    const fragmentRoom = this.payloadRoom(idField, true) // fails early if the ids leave no room
    const o = this.options
    const reassembly = new Reassembler({
      maxMessageBytes: o.maxMessageBytes,
      maxPartial: o.reliable ? 1 : o.maxPartial,
      timeoutMs: o.reliable ? Number.POSITIVE_INFINITY : o.reassemblyTimeoutMs,
      onDiscard: (reason) => this.drop(reason, buf0, undefined, id),
    })
    this.peerStates.set(
      id,
      createPeerState(id, idField, parsed, room, fragmentRoom, {
        receiveWindow: o.receiveWindow,
        reassembly,
        rtt: new RttEstimator(o.retransmit),
      }),
    )
  }

  /** Forgets a peer and everything queued for it (no signal is emitted). Returns whether it was known. */
  removePeer(id: NodeId): boolean {
    const peer = this.peerStates.get(id)
    if (peer === undefined) return false
    if (peer.timer) clearTimeout(peer.timer)
    this.owedAcks.delete(peer)
    this.peerStates.delete(id)
    return true
  }

  onMessage(handler: MessageHandler<Msg>): Unsubscribe {
    if (this.isClosed) throw new TransportClosedError(this.self, 'add a message handler')
    this.handlers = [...this.handlers, handler]
    return () => {
      this.handlers = this.handlers.filter((h) => h !== handler)
    }
  }

  onSignal(handler: (signal: TransportSignal) => void): Unsubscribe {
    this.signalHandlers.add(handler)
    return () => this.signalHandlers.delete(handler)
  }

  /** Told about every dropped incoming datagram (also counted in `stats.dropped`). */
  onDrop(listener: (event: UdpDropEvent) => void): Unsubscribe {
    this.dropListeners.add(listener)
    return () => this.dropListeners.delete(listener)
  }

  /**
   * Queues `msg` for `to`. Throws UnknownNodeError, TransportClosedError, CodecError (from the codec),
   * MessageTooLargeError (beyond maxMessageBytes) or BackpressureError (send queue full; nothing queued).
   */
  send(to: NodeId, msg: Msg): void {
    if (this.isClosed) throw new TransportClosedError(this.self, `send to ${JSON.stringify(to)}`)
    const peer = this.peerStates.get(to)
    if (peer === undefined) {
      if (to === this.self) {
        this.sendToSelf(msg)
        return
      }
      throw new UnknownNodeError(to, `the address book of UDP node ${JSON.stringify(this.self)}`)
    }
    const payload = this.codec.encode(msg)
    if (payload.length > this.options.maxMessageBytes) {
      throw new MessageTooLargeError(payload.length, this.options.maxMessageBytes)
    }
    const link = peer.send
    const o = this.options
    const queueing = o.reliable || peer.inc === 0
    if (queueing) {
      if (link.messages + 1 > o.maxQueuedMessages) {
        throw new BackpressureError(
          to,
          link.messages,
          link.bytes,
          `${o.maxQueuedMessages} messages`,
        )
      }
      if (link.bytes + payload.length > o.maxQueuedBytes) {
        throw new BackpressureError(to, link.messages, link.bytes, `${o.maxQueuedBytes} bytes`)
      }
    }
    const message: OutMessage = { payload }
    const segments = this.segment(peer, message)
    this.counters.messagesSent++
    if (!queueing) {
      for (const segment of segments) this.transmitUnreliable(peer, segment)
      return
    }
    link.enqueue(message, segments)
    this.pump(peer)
  }

  close(): Promise<void> {
    if (this.closing) return this.closing
    this.isClosed = true
    this.handlers = []
    this.signalHandlers.clear()
    this.dropListeners.clear()
    for (const peer of this.peerStates.values()) {
      if (peer.timer) clearTimeout(peer.timer)
      peer.timer = undefined
      peer.send.abandon()
      peer.reassembly.clear()
    }
    this.owedAcks.clear()
    this.selfQueue = []
    if (this.flushHandle) clearImmediate(this.flushHandle)
    if (this.sweepTimer) clearInterval(this.sweepTimer)
    this.flushHandle = undefined
    this.sweepTimer = undefined
    this.closing = new Promise((resolve) => {
      try {
        this.socket.close(() => resolve())
      } catch {
        resolve() // already closed underneath us
      }
    })
    return this.closing
  }

  // ---- sending ----

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
  private segment(peer: PeerState, message: OutMessage): OutSegment[] {
    const payload = message.payload
    if (payload.length <= peer.room) return [newSegment(payload, undefined, message, true)]
    const parts = splitPayload(payload, peer.fragmentRoom)
    if (parts.length > MAX_FRAGMENTS) {
      throw new MessageTooLargeError(payload.length, MAX_FRAGMENTS * peer.fragmentRoom)
    }
    const msgId = peer.nextMsgId
    peer.nextMsgId = (peer.nextMsgId + 1) >>> 0
    return parts.map((part, index) =>
      newSegment(part, { msgId, index, count: parts.length }, message, index === parts.length - 1),
    )
  }

  /** Sends what the window allows, or starts the handshake when the peer's incarnation is unknown. */
  private pump(peer: PeerState): void {
    if (peer.inc === 0) {
      if (peer.send.waiting.length > 0) this.startHandshake(peer)
      return
    }
    if (!this.options.reliable) {
      const waiting = peer.send.waiting
      peer.send.abandon()
      for (const segment of waiting) this.transmitUnreliable(peer, segment)
      return
    }
    const now = performance.now()
    let segment = peer.send.launch(this.options.sendWindow)
    while (segment !== undefined) {
      segment.attempts = 1
      segment.firstSentAt = now
      segment.deadline = now + peer.rtt.timeout(1)
      this.transmitData(peer, segment)
      this.arm(peer, segment.deadline)
      segment = peer.send.launch(this.options.sendWindow)
    }
  }

  private header(peer: PeerState, type: PacketType): OutgoingHeader {
    const pn = this.nextPn
    this.nextPn = pn + 1 // 48 bits: centuries at a million datagrams per second
    return {
      type,
      srcInc: this.incarnation,
      dstInc: peer.inc,
      pn,
      srcIdField: this.selfField,
      dstIdField: peer.idField,
    }
  }

  private transmitData(peer: PeerState, segment: OutSegment): void {
    const h = this.header(peer, PacketType.Data)
    h.seq = segment.seq
    h.base = peer.send.base()
    h.ack = peer.recv.expected
    h.sack = peer.recv.sack()
    h.frag = segment.frag
    peer.ackOwed = false // piggybacked
    this.emitDatagram(peer, encodeDatagram(h, segment.payload, this.macBytes))
  }

  private transmitUnreliable(peer: PeerState, segment: OutSegment): void {
    const h = this.header(peer, PacketType.Unreliable)
    h.frag = segment.frag
    this.emitDatagram(peer, encodeDatagram(h, segment.payload, this.macBytes))
  }

  private transmitControl(peer: PeerState, type: PacketType, nonce: number, dstInc: number): void {
    const h = this.header(peer, type)
    h.dstInc = dstInc
    if (type === PacketType.Ack) {
      h.ack = peer.recv.expected
      h.sack = peer.recv.sack()
      this.counters.acksSent++
    } else {
      h.nonce = nonce
    }
    this.emitDatagram(peer, encodeDatagram(h, undefined, this.macBytes))
  }

  private emitDatagram(peer: PeerState, datagram: Buffer): void {
    this.auth?.sign(datagram)
    this.counters.datagramsSent++
    this.counters.bytesSent += datagram.length
    try {
      this.socket.send(datagram, peer.address.port, peer.address.host)
    } catch {
      this.counters.socketErrors++ // e.g. socket closed underneath: treated as loss
    }
  }

  private sendToSelf(msg: Msg): void {
    // Through the codec, as a remote peer would get it (a copy, and the same failures).
    const copy = this.codec.decode(this.codec.encode(msg))
    this.counters.messagesSent++
    this.selfQueue.push(copy)
    this.scheduleFlush()
  }

  // ---- handshake and incarnations ----

  /** Challenges the peer for its current incarnation (idempotent while one is outstanding). */
  private startHandshake(peer: PeerState): void {
    if (peer.helloNonce !== 0) return
    peer.helloNonce = randomInt(1, 0x1_0000_0000)
    peer.helloAttempts = 1
    this.counters.handshakes++
    this.sendHello(peer)
  }

  private sendHello(peer: PeerState): void {
    peer.helloDeadline = performance.now() + peer.rtt.timeout(peer.helloAttempts)
    this.transmitControl(peer, PacketType.Hello, peer.helloNonce, peer.inc)
    this.arm(peer, peer.helloDeadline)
  }

  /** Adopts `inc` as the peer's incarnation; a different one than before means it restarted. */
  private commit(peer: PeerState, inc: number): void {
    peer.helloNonce = 0
    if (peer.inc === inc) return
    const restarted = peer.inc !== 0
    if (restarted) {
      peer.retired.push(peer.inc)
      if (peer.retired.length > RETIRED_INCARNATIONS) peer.retired.shift()
      // New incarnation, new link: what it had not acknowledged is re-cut and resent from seq 0.
      const unacknowledged = peer.send.takeUnacknowledged()
      for (const message of unacknowledged) peer.send.enqueue(message, this.segment(peer, message))
      peer.recv.reset()
      peer.reassembly.clear()
      peer.ackOwed = false
      this.owedAcks.delete(peer)
      this.counters.peerRestarts++
    }
    peer.inc = inc
    peer.replay.reset()
    if (restarted) this.signal({ type: 'peer-restarted', peer: peer.id })
    if (this.peerStates.get(peer.id) === peer && !this.isClosed) this.pump(peer)
  }

  // ---- timers ----

  /** Makes sure the peer's single timer fires no later than `at`. */
  private arm(peer: PeerState, at: number): void {
    if (peer.timer !== undefined && peer.timerAt <= at) return
    if (peer.timer !== undefined) clearTimeout(peer.timer)
    peer.timerAt = at
    peer.timer = setTimeout(() => this.onTimer(peer), Math.max(0, at - performance.now()))
    peer.timer.unref()
  }

  private onTimer(peer: PeerState) {
    peer.timer = undefined
    peer.timerAt = Number.POSITIVE_INFINITY
    if (this.isClosed || this.peerStates.get(peer.id) !== peer) return
    const now = performance.now()
    const { maxAttempts } = this.options.retransmit
    if (peer.helloNonce !== 0 && peer.helloDeadline <= now) {
      if (peer.helloAttempts >= maxAttempts) return this.giveUp(peer)
      peer.helloAttempts++
      this.sendHello(peer)
    }
    for (const segment of peer.send.inFlight) {
      if (segment.sacked || segment.deadline > now) continue
      if (segment.attempts >= maxAttempts) return this.giveUp(peer)
      segment.attempts++
      segment.deadline = now + peer.rtt.timeout(segment.attempts)
      this.counters.retransmissions++
      this.transmitData(peer, segment)
    }
    const next = Math.min(
      peer.send.nextDeadline(),
      peer.helloNonce !== 0 ? peer.helloDeadline : Number.POSITIVE_INFINITY,
    )
    if (next !== Number.POSITIVE_INFINITY) this.arm(peer, next)
  }

  /** Retries ran out: drop what is queued for the peer and say so. Later sends start afresh. */
  private giveUp(peer: PeerState): void {
    peer.helloNonce = 0
    if (peer.timer) clearTimeout(peer.timer)
    peer.timer = undefined
    peer.timerAt = Number.POSITIVE_INFINITY
    const dropped = peer.send.abandon()
    this.counters.peersUnreachable++
    this.counters.messagesAbandoned += dropped
    this.signal({ type: 'peer-unreachable', peer: peer.id, dropped })
  }

  private scheduleFlush(): void {
    if (this.flushHandle === undefined) this.flushHandle = setImmediate(() => this.flush())
  }

  /** End of tick: acknowledgements that found no data to ride on go alone; self-sends are delivered. */
  private flush(): void {
    this.flushHandle = undefined
    if (this.isClosed) return
    for (const peer of this.owedAcks) {
      if (peer.ackOwed && peer.inc !== 0) this.transmitControl(peer, PacketType.Ack, 0, peer.inc)
      peer.ackOwed = false
    }
    this.owedAcks.clear()
    const queue = this.selfQueue
    this.selfQueue = []
    for (const msg of queue) {
      if (this.isClosed) return
      this.deliver(this.self, msg)
    }
  }

  private sweepReassembly(): void {
    const now = performance.now()
    for (const peer of this.peerStates.values()) peer.reassembly.expire(now)
  }

  // ---- receiving ----

  private onDatagram(buf: Buffer, rinfo: RemoteInfo): void {
    if (this.isClosed) return
    this.counters.datagramsReceived++
    this.counters.bytesReceived += buf.length
    try {
      this.receive(buf, rinfo)
    } catch {
      // A bug of ours must not become a crash: the datagram is lost, and counted.
      this.counters.internalErrors++
      this.drop('malformed', buf, rinfo)
    }
  }

  private receive(buf: Buffer, rinfo: RemoteInfo) {
    if (buf.length > this.options.maxDatagramBytes) return this.drop('oversized', buf, rinfo)
    const d = decodeDatagram(buf)
    if (typeof d === 'string') return this.drop(d, buf, rinfo)
    // Nothing in the header is trusted before the MAC checks out.
    if (this.auth) {
      if (d.mac === undefined) return this.drop('unauthenticated', buf, rinfo)
      if (!this.auth.verify(buf, d.signedLength)) return this.drop('bad-mac', buf, rinfo)
    } else if (d.mac !== undefined) {
      return this.drop('bad-mac', buf, rinfo)
    }
    if (d.to !== this.self) return this.drop('wrong-destination', buf, rinfo, d.from)
    const peer = this.peerStates.get(d.from)
    if (peer === undefined) return this.drop('unknown-sender', buf, rinfo, d.from)
    if (peer.retired.includes(d.srcInc)) return this.drop('stale-incarnation', buf, rinfo, d.from)
    const known = d.srcInc === peer.inc
    // Replay protection needs the key: without it anyone can forge packet numbers and poison the window.
    if (this.auth && (known ? !peer.replay.accept(d.pn) : seenRecently(peer, d.srcInc, d.pn))) {
      return this.drop('replayed', buf, rinfo, d.from)
    }

    if (d.type === PacketType.Hello) {
      const now = performance.now()
      if (now - peer.lastReplyAt >= REPLY_INTERVAL_MS || known) {
        peer.lastReplyAt = now
        this.transmitControl(peer, PacketType.HelloReply, d.nonce, d.srcInc)
      }
      // A new incarnation talking to us: confirm it with our own challenge before resetting anything.
      if (!known && peer.inc !== 0) this.startHandshake(peer)
      return
    }
    if (d.type === PacketType.HelloReply) {
      if (d.dstInc !== this.incarnation || peer.helloNonce === 0 || d.nonce !== peer.helloNonce) {
        return this.drop('unsolicited', buf, rinfo, d.from)
      }
      if (!known) {
        this.commit(peer, d.srcInc)
        peer.replay.accept(d.pn)
      } else {
        peer.helloNonce = 0
        this.pump(peer)
      }
      return
    }
    // Data and acks must be meant for this very incarnation of ours.
    if (d.dstInc !== this.incarnation) {
      this.drop('stale-incarnation', buf, rinfo, d.from)
      this.startHandshake(peer) // so the peer learns our new incarnation
      return
    }
    if (!known) {
      if (peer.inc !== 0) {
        // Possibly a restart, possibly a late datagram: only a fresh handshake answer decides.
        this.drop('stale-incarnation', buf, rinfo, d.from)
        this.startHandshake(peer)
        return
      }
      this.commit(peer, d.srcInc)
      peer.replay.accept(d.pn)
    }
    switch (d.type) {
      case PacketType.Data:
        return this.receiveData(peer, d, buf, rinfo)
      case PacketType.Ack:
        return this.receiveAck(peer, d.ack, d.sack)
      case PacketType.Unreliable:
        return this.receivePayload(peer, d.payload, d.frag, buf, rinfo)
    }
  }

  private receiveAck(peer: PeerState, ack: number, sack: number): void {
    const before = peer.send.inFlight.length
    const rtt = peer.send.acknowledge(ack, sack, performance.now())
    if (rtt >= 0) peer.rtt.sample(rtt)
    if (peer.send.inFlight.length < before && peer.send.waiting.length > 0) this.pump(peer)
  }

  private receiveData(peer: PeerState, d: Datagram, buf: Buffer, rinfo: RemoteInfo) {
    if (!this.options.reliable) {
      // Mixed modes in one group: accept the payload, skip the link.
      return this.receivePayload(peer, d.payload, d.frag, buf, rinfo)
    }
    this.receiveAck(peer, d.ack, d.sack)
    peer.ackOwed = true
    const incoming: Incoming = { payload: d.payload, frag: d.frag }
    const refused = peer.recv.receive(
      d.seq,
      d.base,
      incoming,
      (item) => this.receivePayload(peer, item.payload, item.frag, buf, rinfo),
      (count) => {
        this.counters.skipped += count
        peer.reassembly.clear()
      },
    )
    if (refused) this.drop(refused, buf, rinfo, peer.id)
    // A handler that answered at once has carried the ack on its data; otherwise it goes alone.
    if (peer.ackOwed && !this.isClosed && this.peerStates.get(peer.id) === peer) {
      this.owedAcks.add(peer)
      this.scheduleFlush()
    }
  }

  /** A payload in order (or unreliable): reassemble, decode, hand to the application. */
  private receivePayload(
    peer: PeerState,
    payload: Uint8Array,
    frag: FragmentInfo | undefined,
    buf: Buffer,
    rinfo: RemoteInfo,
  ) {
    if (this.isClosed) return
    let bytes = payload
    if (frag !== undefined) {
      const whole = peer.reassembly.add(frag, payload, performance.now())
      if (whole === undefined) return
      if (typeof whole === 'string') return this.drop(whole, buf, rinfo, peer.id)
      bytes = whole
    }
    let msg: Msg
    try {
      msg = this.codec.decode(bytes)
    } catch {
      return this.drop('undecodable', buf, rinfo, peer.id)
    }
    this.deliver(peer.id, msg)
  }

  private deliver(from: NodeId, msg: Msg): void {
    this.counters.messagesDelivered++
    const handlers = this.handlers
    for (let i = 0; i < handlers.length; i++) {
      try {
        handlers[i]!(from, msg)
      } catch (error) {
        this.handlerFailed(error)
      }
    }
  }

  private signal(signal: TransportSignal): void {
    for (const handler of [...this.signalHandlers]) {
      try {
        handler(signal)
      } catch (error) {
        this.handlerFailed(error)
      }
    }
  }

  private drop(reason: UdpDropReason, buf: Uint8Array, rinfo?: RemoteInfo, from?: NodeId): void {
    this.counters.dropped[reason]++
    this.counters.droppedTotal++
    if (this.dropListeners.size === 0) return
    const event: UdpDropEvent = { reason, bytes: buf.length }
    if (from !== undefined) event.from = from
    if (rinfo) {
      event.address = rinfo.address
      event.port = rinfo.port
    }
    for (const listener of [...this.dropListeners]) {
      try {
        listener(event)
      } catch (error) {
        this.handlerFailed(error)
      }
    }
  }

  /** An application callback threw: the link state stays consistent, and the error is not swallowed. */
  private handlerFailed(error: unknown): void {
    this.counters.handlerErrors++
    process.nextTick(() => {
      throw error
    })
  }
}

const buf0 = new Uint8Array(0)

function newSegment(
  payload: Uint8Array,
  frag: FragmentInfo | undefined,
  message: OutMessage,
  last: boolean,
): OutSegment {
  return {
    seq: 0,
    payload,
    frag,
    message,
    last,
    attempts: 0,
    firstSentAt: 0,
    deadline: 0,
    sacked: false,
  }
}

/** Normalizes the `peers` option into [id, address] pairs. */
export function peerEntries(
  peers: UdpTransportOptions['peers'],
): Array<readonly [NodeId, PeerAddress]> {
  if (peers === undefined) return []
  if (peers instanceof Map || Symbol.iterator in Object(peers)) {
    return [...(peers as Iterable<readonly [NodeId, PeerAddress]>)]
  }
  return Object.entries(peers as Record<string, PeerAddress>)
}
