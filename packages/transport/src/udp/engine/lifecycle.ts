/**
 * The middle layer of the UDP link engine (`../engine.ts`): what a link does over time. The pump
 * (retransmissions, then new data as the windows allow), the handshake that learns and confirms
 * the peer's incarnation, the timers (loss detection, probe timeouts, giving up), renewal before
 * packet numbers wrap, and the acknowledgements flushed at the end of a batch or once their delay
 * (maxAckDelayMs) runs out.
 */
import type { NodeId } from '../../ids.js'
import type { UdpAddress } from '../address.js'
import { type PeerLink, RETIRED_INCARNATIONS } from '../link/peer-link.js'
import { type Datagram, PacketType } from '../wire/header.js'
import { EngineTransmit, PN_RENEW_AT } from './transmit.js'

export abstract class EngineLifecycle extends EngineTransmit {
  /** Adds a peer, or moves it (the address book, in `LinkEngine`); renewal re-adds one. */
  abstract setPeer(id: NodeId, address: UdpAddress): void

  /** Sends what is lost, then what the window allows; or starts the handshake while the peer is unknown. */
  protected pump(link: PeerLink, now: number): void {
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

  // ---- handshake and incarnations ----

  /** Challenges the peer for its current incarnation (idempotent while one is outstanding). */
  protected startHandshake(link: PeerLink, now: number): void {
    if (link.helloNonce !== 0) return
    link.helloNonce = this.entropy.u32()
    link.helloAttempts = 1
    this.stats.handshakes++
    this.sendHello(link, now)
  }

  protected sendHello(link: PeerLink, now: number): void {
    link.helloDeadline = now + link.rtt.timeout(link.helloAttempts - 1, this.entropy.unit())
    this.transmitControl(link, PacketType.Hello, link.helloNonce, link.inc)
    this.rearm(link)
  }

  /**
   * Adopts `inc` as the peer's incarnation; a different one than before means it restarted (or
   * forgot us). `confirmedAt` is the packet number of the handshake answer that proved it: with a
   * key, nothing older from that incarnation is accepted afterwards.
   */
  protected commit(
    link: PeerLink,
    inc: number,
    now: number,
    confirmedAt: number | undefined,
  ): void {
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
      this.stats.resentAfterRestart += unacknowledged.length
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
  protected answersChallenge(link: PeerLink, d: Datagram): boolean {
    return (
      d.type === PacketType.HelloReply &&
      link.helloNonce !== 0 &&
      d.nonce === link.helloNonce &&
      d.dstInc === link.localInc
    )
  }

  // ---- timers ----

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

  protected expire(link: PeerLink, now: number) {
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
    // Last, so that data sent above carried it: a held acknowledgement whose delay ran out.
    if (link.acks.dueAt <= now && link.acks.owed && link.inc !== 0) {
      this.transmitControl(link, PacketType.Ack, 0, link.inc)
    }
    this.rearm(link)
  }

  /**
   * Replaces a link whose packet numbers near 2^48 by a new one (new incarnation of ours, numbers
   * from 0), as removePeer + setPeer would, keeping what was not acknowledged: it is re-sent on the
   * new link, which the peer meets as our restart (so across it delivery is at least once).
   */
  protected renew(link: PeerLink, now: number): PeerLink {
    const messages = link.queue.takeUnacknowledged()
    link.recovery.reset()
    link.reassembly.clear()
    this.owed.delete(link)
    this.unsent.delete(link)
    this.links.delete(link.id)
    this.setPeer(link.id, link.address)
    const fresh = this.links.get(link.id)!
    fresh.retired.push(...link.retired)
    for (const message of messages) fresh.queue.enqueue(message, this.segment(fresh, message))
    this.pump(fresh, now)
    return fresh
  }

  /** Retries ran out: drop what is queued for the peer and say so. Later sends start afresh. */
  protected giveUp(link: PeerLink): void {
    link.helloNonce = 0
    link.helloDeadline = Number.POSITIVE_INFINITY
    const dropped = link.queue.abandon()
    link.recovery.reset()
    link.deadline = Number.POSITIVE_INFINITY
    this.stats.peersUnreachable++
    this.stats.messagesAbandoned += dropped
    this.sink.signal({ type: 'peer-unreachable', peer: link.id, dropped })
  }

  /** Before the port closes: every acknowledgement owed, held ones too, leaves now. Returns how many. */
  acknowledgeAll(): number {
    if (this.stopped) return 0
    let sent = 0
    for (const link of this.links.values()) {
      if (link.acks.owed && link.inc !== 0) {
        this.transmitControl(link, PacketType.Ack, 0, link.inc)
        sent++
      }
    }
    this.owed.clear()
    return sent
  }

  /**
   * End of a batch of input, or of the turn in which `send` was called (`coalesce`): messages
   * that waited for it leave, bundled, then acknowledgements that found no data to ride on go alone.
   */
  flush(now: number): void {
    if (this.stopped) return
    if (this.unsent.size > 0) {
      for (const link of this.unsent) {
        if (this.links.get(link.id) !== link) continue // removed or renewed (renewal sent it)
        this.pump(link, now)
        // Its acknowledgement was left to this data (receiveData), which the window may hold back.
        if (link.acks.owed && link.inc !== 0) this.owed.add(link)
      }
      this.unsent.clear()
    }
    for (const link of this.owed) {
      if (link.acks.owed && link.inc !== 0 && this.links.get(link.id) === link) {
        this.transmitControl(link, PacketType.Ack, 0, link.inc)
      }
    }
    this.owed.clear()
  }
}
