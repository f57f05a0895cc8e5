/**
 * The top layer of the UDP link engine (`../engine.ts`) under its address book: what comes in.
 * A datagram is checked (size, shape, MAC, destination, sender, incarnation, replay) before any
 * field of it is believed, then handled: handshakes, acknowledgements, data in order or through
 * the reorder buffer, and payloads reassembled or unbundled on their way to the sink.
 */
import type { NodeId } from '../../ids.js'
import type { Incoming, PeerLink } from '../link/peer-link.js'
import { seenRecently } from '../link/peer-link.js'
import {
  bundleCount,
  bundlePart,
  type Datagram,
  decodeDatagram,
  type FragmentInfo,
  PacketType,
} from '../wire/header.js'
import { EngineLifecycle } from './lifecycle.js'

/**
 * An acknowledgement leaves after this many data datagrams instead of waiting for the end of the
 * batch or its delay: one lost acknowledgement must not stall a whole window.
 */
const ACK_EVERY = 8

export abstract class EngineReceive extends EngineLifecycle {
  /**
   * Admission (in `LinkEngine`): the new link of an unknown sender the sink admits, within the
   * bound on learned peers, for a datagram that opens a conversation; else undefined.
   */
  protected abstract learn(id: NodeId, type: PacketType, source: unknown): PeerLink | undefined

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

  protected accept(buf: Buffer, now: number, source: unknown) {
    const size = buf.length
    if (size > this.options.maxDatagramBytes) return this.drop('oversized', size, undefined, source)
    const d = decodeDatagram(buf)
    if (typeof d === 'string') return this.drop(d, size, undefined, source)
    // Nothing in the header is trusted before the MAC checks out.
    if (this.auth) {
      if (!d.signed) return this.drop('unauthenticated', size, undefined, source)
      if (!this.auth.verify(buf, d.signedLength))
        return this.drop('bad-mac', size, undefined, source)
    } else if (d.signed) {
      return this.drop('bad-mac', size, undefined, source)
    }
    if (d.to !== this.self) return this.drop('wrong-destination', size, d.from, source)
    const link = this.links.get(d.from) ?? this.learn(d.from, d.type, source)
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

    // A datagram that does not follow the previous one (loss, reordering, a retransmission after
    // a loss, a new incarnation) is acknowledged without delay, so the sender learns of it fast.
    const jumped = known ? link.acks.observe(d.pn) : true
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
      link.acks.observe(d.pn)
    }
    switch (d.type) {
      case PacketType.Data:
        return this.receiveData(link, d, now, source, jumped)
      case PacketType.Ack:
        return this.receiveAck(link, d.ack!, now)
      case PacketType.Unreliable:
        return this.receivePayload(link, d.payload, d.frag, false, now, source)
    }
  }

  protected receiveAck(link: PeerLink, ranges: number[], now: number): void {
    if (!this.options.reliable) return
    const recovery = link.recovery
    const newly = recovery.onAck(ranges, link.nextPn - 1, now, this.jitter, link.queue.lost)
    if (newly < 0) return // names packets never sent: ignored
    link.queue.acknowledged(newly)
    link.queue.release()
    this.pump(link, now)
  }

  protected receiveData(
    link: PeerLink,
    d: Datagram,
    now: number,
    source: unknown,
    jumped: boolean,
  ) {
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
    let prompt = jumped
    if (link.recv.isNext(d.seq, d.base)) {
      // The common case, in order with nothing to skip: no buffering, no callbacks.
      link.recv.advance()
      this.receivePayload(link, d.payload, d.frag, d.bundle, now, source)
      if (link.recv.buffered > 0) {
        prompt = true // it filled a gap: the sender waits to hear that its resend arrived
        link.recv.drain((item) =>
          this.receivePayload(link, item.payload, item.frag, item.bundle, now, source),
        )
      }
    } else {
      prompt = true
      this.receiveOutOfOrder(link, d, now, source)
    }
    // A handler that answered at once has carried the ack on its data; otherwise it goes alone,
    // now if many datagrams wait for it, else at the end of the batch or after maxAckDelayMs.
    if (!link.acks.owed || this.stopped) return
    if (link.acks.unreported >= ACK_EVERY)
      return this.transmitControl(link, PacketType.Ack, 0, link.inc)
    // Data to the peer leaves at the end of the turn (`coalesce`): the acknowledgement rides on it.
    if (this.unsent.has(link)) return
    this.oweAck(link, now, prompt || link.acks.unreported >= this.windowAckThreshold)
  }

  /**
   * Schedules the acknowledgement owed to `link`: at the end of the batch when `prompt` (or delays
   * are off), else held up to maxAckDelayMs for data to the peer to carry it (RFC 9000 §13.2.1).
   */
  protected oweAck(link: PeerLink, now: number, prompt: boolean): void {
    const delay = this.options.maxAckDelayMs
    if (prompt || delay === 0) {
      this.owed.add(link)
      this.sink.flushSoon()
      return
    }
    if (link.acks.dueAt === Number.POSITIVE_INFINITY) {
      link.acks.dueAt = now + delay
      this.rearm(link)
    }
  }

  /**
   * A sender whose window is smaller than ACK_EVERY stalls until it hears back: a full window is
   * acknowledged without delay (the peer's window is assumed to be ours, as with receiveWindow).
   */
  private get windowAckThreshold(): number {
    return Math.min(this.options.sendWindow, this.options.receiveWindow)
  }

  /** Early, late or after a gap the sender gave up on: through the reorder buffer. */
  protected receiveOutOfOrder(link: PeerLink, d: Datagram, now: number, source: unknown): void {
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
  protected receivePayload(
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
