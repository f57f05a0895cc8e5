import { randomInt } from 'node:crypto'
import type { RemoteInfo, Socket } from 'node:dgram'
import { InvalidArgumentError, TransportClosedError } from '../errors.js'
import type { NodeId } from '../ids.js'
import type { MessageHandler, Transport, TransportSignal, Unsubscribe } from '../transport.js'
import { type Family, type PeerAddress, parseAddress, type UdpAddress } from './address.js'
import { admitFromSource } from './admission.js'
import { Authenticator, checkMacOptions } from './auth.js'
import { type Codec, jsonCodec } from './codec.js'
import { type EngineSink, LinkEngine, type LinkInfo } from './engine.js'
import type { ResolvedOptions, UdpTransportOptions } from './options.js'
import { snapshotStats, type UdpDropEvent, type UdpDropReason, type UdpStats } from './stats.js'

/** How `close` ends the transport. */
export interface UdpCloseOptions {
  /**
   * true (default): stop accepting sends, keep receiving, and wait until every queued message is
   * acknowledged (or its peer is declared unreachable), at most `timeoutMs`; then close.
   * false: close at once.
   */
  graceful?: boolean
  /** Longest wait of a graceful close, ms. Default 2000. */
  timeoutMs?: number
}

/** What `close` reports: every message that was accepted by `send` and never acknowledged. */
export interface UdpCloseReport {
  graceful: boolean
  abandonedMessages: number
  abandoned: Array<{ peer: NodeId; messages: number }>
}

/** A `Transport` over UDP. Build it with `createUdpTransport` (create.ts). */
export class UdpTransport<Msg = unknown> implements Transport<Msg> {
  readonly self: NodeId
  private readonly socket: Socket
  private readonly family: Family
  private readonly codec: Codec<Msg>
  private readonly engine: LinkEngine
  private handlers: MessageHandler<Msg>[] = []
  private readonly signalHandlers = new Set<(signal: TransportSignal) => void>()
  private readonly dropListeners = new Set<(event: UdpDropEvent) => void>()
  private selfQueue: Msg[] = []
  private flushHandle: ReturnType<typeof setImmediate> | undefined
  private flushAcks = false
  private timer: ReturnType<typeof setTimeout> | undefined
  private timerAt = Number.POSITIVE_INFINITY
  private sweepTimer: ReturnType<typeof setInterval> | undefined
  private isClosed = false
  private closing: Promise<UdpCloseReport> | undefined
  /** While a graceful close waits: called when nothing is left unacknowledged. */
  private drained: (() => void) | undefined
  /** Messages given up during a graceful close, by peer. */
  private readonly abandonedWhileClosing = new Map<NodeId, number>()

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
    this.codec = options.codec ?? (jsonCodec as Codec<Msg>)
    checkMacOptions(options)
    const auth =
      options.key === undefined
        ? undefined
        : new Authenticator(options.key, options.hmacEngine, options.mac)
    this.engine = new LinkEngine(options.id, resolved, auth, this.sink(options.admit), {
      u32: () => randomInt(1, 0x1_0000_0000),
      unit: Math.random,
    })
    for (const [id, address] of peerEntries(options.peers)) this.setPeer(id, address)
    socket.on('message', (buf, rinfo) => this.onDatagram(buf, rinfo))
    // Socket errors (ICMP unreachable reported on send, buffer full...) are loss, never a crash.
    socket.on('error', () => {
      this.engine.stats.socketErrors++
    })
    if (!resolved.reliable) {
      const every = Math.min(1000, resolved.reassemblyTimeoutMs)
      this.sweepTimer = setInterval(
        () => this.guarded(() => this.engine.expireReassembly(performance.now())),
        every,
      )
      this.sweepTimer.unref()
    }
  }

  /** True from the moment `close` is called: sends are refused from then on. */
  get closed(): boolean {
    return this.isClosed || this.closing !== undefined
  }

  /** The bound address; `port` is the real one when bound to port 0. */
  get address(): UdpAddress & { family: 'IPv4' | 'IPv6' } {
    // node:dgram throws a bare Error once the socket is closed: say what happened instead.
    if (this.isClosed) throw new TransportClosedError(this.self, 'read its address')
    const a = this.socket.address()
    return { host: a.address, port: a.port, family: a.family === 'IPv6' ? 'IPv6' : 'IPv4' }
  }

  /** A snapshot of the counters. */
  get stats(): UdpStats {
    return snapshotStats(this.engine.stats)
  }

  /** Ids in the address book. */
  get peers(): NodeId[] {
    return this.engine.peerIds
  }

  /** The state of the link to `id` (incarnations, round trip, queue), or undefined for an unknown id. */
  linkInfo(id: NodeId): LinkInfo | undefined {
    return this.engine.linkInfo(id)
  }

  /**
   * Adds a peer, or moves an existing one to a new address (its link state is kept).
   * An entry for this node's own id is ignored, so all nodes can share one address book.
   */
  setPeer(id: NodeId, address: PeerAddress): void {
    if (this.closed) throw new TransportClosedError(this.self, `set peer ${JSON.stringify(id)}`)
    const parsed = parseAddress(address, this.family, `address of ${JSON.stringify(id)}`)
    if (id === this.self) return
    this.engine.setPeer(id, parsed)
  }

  /**
   * Forgets a peer and everything queued for it (counted in `stats.messagesAbandoned`; no signal).
   * Added again later, it starts a new link, which the peer sees as a restart of this node.
   * Returns whether it was known.
   */
  removePeer(id: NodeId): boolean {
    return this.engine.removePeer(id)
  }

  onMessage(handler: MessageHandler<Msg>): Unsubscribe {
    if (this.closed) throw new TransportClosedError(this.self, 'add a message handler')
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
  send(to: NodeId, msg: Msg) {
    if (this.closed) throw new TransportClosedError(this.self, `send to ${JSON.stringify(to)}`)
    if (to === this.self) return this.sendToSelf(msg)
    this.engine.send(to, this.codec.encode(msg), performance.now())
  }

  /**
   * Closes the transport. By default gracefully: sends are refused at once, what was already sent
   * is given up to `timeoutMs` to be acknowledged, and the report says exactly what was not.
   * Idempotent: later calls return the same promise.
   */
  close(options: UdpCloseOptions = {}): Promise<UdpCloseReport> {
    if (this.closing) return this.closing
    const graceful = options.graceful ?? true
    const timeoutMs = options.timeoutMs ?? 2000
    if (!(timeoutMs >= 0 && timeoutMs <= 600_000)) {
      // A promise-returning method reports failure by rejecting, never by throwing.
      return Promise.reject(
        new InvalidArgumentError(`close timeoutMs must be in 0..600000, got ${timeoutMs}`),
      )
    }
    if (!graceful) {
      this.countAbandoned(this.self, this.selfQueue.length)
      this.engine.stats.messagesAbandoned += this.selfQueue.length
      this.selfQueue = []
    }
    this.closing = (async () => {
      if (graceful) {
        // One turn of the event loop: self-sends are delivered and owed acknowledgements leave.
        await new Promise<void>((resolve) => setImmediate(resolve))
        if (this.engine.unacknowledged() > 0) await this.drain(timeoutMs)
        // Every acknowledgement owed (held ones too) leaves before the port closes, or its senders
        // would retransmit into the void; node:dgram sends a tick later (an address lookup).
        if (this.engine.acknowledgeAll() > 0) await new Promise<void>((r) => setImmediate(r))
      }
      for (const { peer, messages } of this.engine.abandonAll()) this.countAbandoned(peer, messages)
      this.teardown()
      await new Promise<void>((resolve) => {
        try {
          this.socket.close(() => resolve())
        } catch {
          resolve() // already closed underneath us
        }
      })
      const abandoned = [...this.abandonedWhileClosing].map(([peer, messages]) => ({
        peer,
        messages,
      }))
      return {
        graceful,
        abandonedMessages: abandoned.reduce((sum, entry) => sum + entry.messages, 0),
        abandoned,
      }
    })()
    return this.closing
  }

  private drain(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const timeout = setTimeout(() => this.drained?.(), timeoutMs)
      this.drained = () => {
        clearTimeout(timeout)
        this.drained = undefined
        resolve()
      }
    })
  }

  private countAbandoned(peer: NodeId, messages: number): void {
    if (messages > 0) {
      this.abandonedWhileClosing.set(peer, (this.abandonedWhileClosing.get(peer) ?? 0) + messages)
    }
  }

  private teardown(): void {
    this.isClosed = true
    this.engine.stop()
    this.handlers = []
    this.signalHandlers.clear()
    this.dropListeners.clear()
    if (this.timer) clearTimeout(this.timer)
    if (this.flushHandle) clearImmediate(this.flushHandle)
    if (this.sweepTimer) clearInterval(this.sweepTimer)
    this.timer = undefined
    this.flushHandle = undefined
    this.sweepTimer = undefined
  }

  /** After every input: a graceful close finishes once nothing is left to acknowledge. */
  private checkDrained(): void {
    if (this.drained !== undefined && this.engine.unacknowledged() === 0) this.drained()
  }

  // ---- the engine's effects ----

  private sink(admit: UdpTransportOptions['admit']): EngineSink {
    return {
      transmit: (address, datagram) => {
        try {
          this.socket.send(datagram, address.port, address.host)
        } catch {
          this.engine.stats.socketErrors++ // e.g. socket closed underneath: treated as loss
        }
      },
      deliver: (from, payload, source) => this.decodeAndDeliver(from, payload, source),
      signal: (signal) => {
        if (this.closing !== undefined && signal.type === 'peer-unreachable') {
          this.countAbandoned(signal.peer, signal.dropped)
        }
        this.signal(signal)
      },
      dropped: (reason, bytes, from, source) => this.tellDrop(reason, bytes, from, source),
      wake: (at) => this.arm(at),
      ...(admit === undefined
        ? {}
        : { admit: admitFromSource(admit, (error) => this.handlerFailed(error)) }),
      flushSoon: () => {
        this.flushAcks = true
        this.scheduleFlush()
      },
    }
  }

  /** Makes sure the single timer fires no later than `at`. */
  private arm(at: number): void {
    if (this.isClosed || (this.timer !== undefined && this.timerAt <= at)) return
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timerAt = at
    this.timer = setTimeout(
      () => this.guarded(() => this.onTimer()),
      Math.max(0, at - performance.now()),
    )
    this.timer.unref()
  }

  private onTimer(): void {
    this.timer = undefined
    this.timerAt = Number.POSITIVE_INFINITY
    if (this.isClosed) return
    this.engine.onTimer(performance.now())
    this.checkDrained()
  }

  private scheduleFlush(): void {
    if (this.flushHandle === undefined) {
      this.flushHandle = setImmediate(() => this.guarded(() => this.flush()))
    }
  }

  /** End of tick: acknowledgements that found no data to ride on go alone; self-sends are delivered. */
  private flush(): void {
    this.flushHandle = undefined
    if (this.isClosed) return
    if (this.flushAcks) {
      this.flushAcks = false
      this.engine.flush(performance.now())
    }
    const queue = this.selfQueue
    this.selfQueue = []
    for (const msg of queue) {
      if (this.isClosed) return
      this.deliver(this.self, msg)
    }
  }

  private sendToSelf(msg: Msg): void {
    // Through the codec, as a remote peer would get it (a copy, and the same failures).
    const copy = this.codec.decode(this.codec.encode(msg))
    this.engine.stats.messagesSent++
    this.selfQueue.push(copy)
    this.scheduleFlush()
  }

  // ---- receiving ----

  /** Guarded as `guarded` is, inline: no closure per datagram. */
  private onDatagram(buf: Buffer, rinfo: RemoteInfo): void {
    if (this.isClosed) return
    try {
      this.engine.receive(buf, performance.now(), rinfo)
      this.checkDrained()
    } catch {
      this.engine.stats.internalErrors++
    }
  }

  /** False when the codec refused the payload (dropped and counted). */
  private decodeAndDeliver(from: NodeId, payload: Uint8Array, source: unknown): boolean {
    let msg: Msg
    try {
      msg = this.codec.decode(payload)
    } catch {
      this.engine.drop('undecodable', payload.length, from, source)
      return false
    }
    this.deliver(from, msg)
    return true
  }

  private deliver(from: NodeId, msg: Msg): void {
    this.engine.stats.messagesDelivered++
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

  private tellDrop(
    reason: UdpDropReason,
    bytes: number,
    from: NodeId | undefined,
    source: unknown,
  ): void {
    if (this.dropListeners.size === 0) return
    const event: UdpDropEvent = { reason, bytes }
    if (from !== undefined) event.from = from
    const rinfo = source as RemoteInfo | undefined
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

  /**
   * Runs a socket or timer callback: nothing the network sends may end the process, so a bug of
   * ours there is counted (`internalErrors`) instead of escaping to the event loop. Application
   * handlers are called inside with their own guard (`handlerFailed`), which re-throws on purpose.
   */
  private guarded(work: () => void): void {
    try {
      work()
    } catch {
      this.engine.stats.internalErrors++
    }
  }

  /** An application callback threw: the link state stays consistent, and the error is not swallowed. */
  private handlerFailed(error: unknown): void {
    this.engine.stats.handlerErrors++
    process.nextTick(() => {
      throw error
    })
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
