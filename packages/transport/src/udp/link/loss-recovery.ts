import type { RttEstimator } from '../rtt.js'
import type { AckRanges } from '../wire/ack-block.js'
import type { OutSegment } from './send-queue.js'

/** A packet counts as lost once this many later packet numbers were acknowledged (as in QUIC and TCP). */
export const PACKET_THRESHOLD = 3
/** The congestion window never shrinks below this many packets. */
export const MIN_WINDOW = 2

interface SentPacket {
  pn: number
  sentAt: number
  segment: OutSegment
}

/**
 * Loss detection and the probe timer of one link, after QUIC's recovery (RFC 9002), simplified:
 * - every transmission has its own packet number, so acknowledgements name transmissions;
 * - a packet is lost when PACKET_THRESHOLD later ones were acknowledged, or when it stayed
 *   unacknowledged for 9/8 of the round trip while a later one was;
 * - when nothing is acknowledged for a probe timeout, one probe is sent and the timeout doubles:
 *   a timeout never resends the whole window.
 * Losses are a congestion signal, not only a resend order (after NewReno, RFC 6582): the first loss
 * of a packet sent since the last reduction halves the window (at most once per round of packets),
 * and at most one window of retransmissions leaves per round trip (`takeRetransmission`). So
 * acknowledgements, forged ones included, can never make the sender resend faster than one window
 * per round trip, however many of them declare the whole flight lost: after a few forged rounds
 * the window, and the resending with it, is down to MIN_WINDOW packets per round trip.
 * Pure: time comes in as arguments, the jitter from a function returning numbers in [0, 1).
 */
export class LossRecovery {
  /** Data packets in flight, ascending by packet number. */
  private sent: SentPacket[] = []
  largestAcked = -1
  /** Consecutive probe timeouts without an acknowledgement. */
  ptoCount = 0
  /** When the earliest packet below the largest acknowledged counts as lost by time. */
  lossTime = Number.POSITIVE_INFINITY
  /** When the probe timer fires (Infinity when nothing is in flight). */
  ptoAt = Number.POSITIVE_INFINITY
  /** Congestion window: retransmissions per round (new data is bounded by the send window alone). */
  window: number
  /** Below it the window grows by a packet per packet acknowledged, above it by a packet per window. */
  private threshold = Number.POSITIVE_INFINITY
  /** Packets acknowledged towards the next packet of additive growth. */
  private growth = 0
  /** When the window was last reduced: losses of packets sent before then do not reduce it again. */
  private reducedAt = Number.NEGATIVE_INFINITY
  /** Retransmissions left in the current round, and when the round ends (a round trip, at least minRtoMs). */
  private retransmitBudget = 0
  roundEndsAt = Number.NEGATIVE_INFINITY

  constructor(
    private readonly rtt: RttEstimator,
    private readonly maxWindow = Number.POSITIVE_INFINITY,
    /** How long the peer may hold an acknowledgement (its maxAckDelayMs, assumed equal to ours). */
    private readonly peerAckDelayMs = 0,
  ) {
    this.window = maxWindow
  }

  /**
   * Whether one more retransmission may leave now; if so it is counted. A new round (one probe
   * timeout long, so never shorter than minRtoMs whatever the samples say) brings one window.
   */
  takeRetransmission(now: number): boolean {
    if (now >= this.roundEndsAt) {
      this.roundEndsAt = now + this.rtt.base()
      this.retransmitBudget = Math.max(MIN_WINDOW, Math.min(this.window, this.maxWindow))
    }
    if (this.retransmitBudget <= 0) return false
    this.retransmitBudget--
    return true
  }

  get inFlight(): number {
    return this.sent.length
  }

  /**
   * A data packet left. The probe timer starts when nothing was in flight and otherwise keeps
   * running (it restarts on progress, as RFC 6298's retransmission timer does), so a steady
   * stream of sends costs no timer arithmetic.
   */
  onSent(pn: number, segment: OutSegment, now: number, jitter: () => number): void {
    this.sent.push({ pn, sentAt: now, segment })
    segment.outstanding++
    if (this.ptoAt === Number.POSITIVE_INFINITY) this.armPto(now, jitter)
  }

  /**
   * Applies an acknowledgement. Pushes segments found lost onto `lost`. Returns how many segments
   * it acknowledged for the first time, or -1 when it names packets never sent (ignored).
   */
  onAck(
    ranges: AckRanges,
    largestSent: number,
    now: number,
    jitter: () => number,
    lost: OutSegment[],
  ): number {
    const largest = ranges[0]!
    if (largest > largestSent) return -1
    let newly = 0
    let any = false
    let sample = -1
    // Compacts `sent` in place: acknowledgements arrive per datagram, so no copy per call.
    const sent = this.sent
    let kept = 0
    let k = ranges.length - 2 // lowest range first, as packets ascend
    for (let i = 0; i < sent.length; i++) {
      const packet = sent[i]!
      while (k >= 0 && ranges[k]! < packet.pn) k -= 2
      if (k >= 0 && ranges[k + 1]! <= packet.pn) {
        any = true
        packet.segment.outstanding--
        if (!packet.segment.acked) {
          packet.segment.acked = true
          newly++
        }
        if (packet.pn === largest) sample = now - packet.sentAt
      } else if (packet.segment.acked) {
        packet.segment.outstanding-- // another copy was acknowledged: nothing to wait for
      } else {
        sent[kept++] = packet
      }
    }
    sent.length = kept
    if (newly > 0) this.grow(newly)
    if (largest > this.largestAcked) this.largestAcked = largest
    if (sample >= 0) this.rtt.sample(sample)
    this.detectLost(now, lost)
    if (any) {
      this.ptoCount = 0
      this.armPto(now, jitter)
    } else if (this.sent.length === 0) {
      this.ptoAt = Number.POSITIVE_INFINITY
    }
    return newly
  }

  /** Declares lost what the thresholds say; pushes segments that need sending again onto `lost`. */
  detectLost(now: number, lost: OutSegment[]): void {
    const delay = this.rtt.lossDelay()
    this.lossTime = Number.POSITIVE_INFINITY
    let kept: SentPacket[] | undefined
    for (let i = 0; i < this.sent.length; i++) {
      const packet = this.sent[i]!
      if (packet.pn > this.largestAcked) {
        if (kept !== undefined) for (let j = i; j < this.sent.length; j++) kept.push(this.sent[j]!)
        break
      }
      // One expression for "lost by time" and for the timer, so the timer never fires on nothing.
      const lostAt = packet.sentAt + delay
      if (this.largestAcked - packet.pn >= PACKET_THRESHOLD || lostAt <= now) {
        kept ??= this.sent.slice(0, i)
        if (packet.sentAt > this.reducedAt) {
          // The first loss since the last reduction: one reduction per round of packets.
          this.window = Math.max(
            MIN_WINDOW,
            Math.floor(Math.min(this.window, this.sent.length) / 2),
          )
          this.threshold = this.window
          this.growth = 0
          this.reducedAt = now
        }
        const segment = packet.segment
        segment.outstanding--
        if (!segment.acked && segment.outstanding === 0 && !segment.queued) {
          segment.queued = true
          lost.push(segment)
        }
      } else {
        kept?.push(packet)
        this.lossTime = Math.min(this.lossTime, lostAt)
      }
    }
    if (kept !== undefined) this.sent = kept
    if (this.sent.length === 0) this.ptoAt = Number.POSITIVE_INFINITY
  }

  /**
   * After NewReno: a packet per packet acknowledged up to the threshold (slow start), then a packet
   * per window acknowledged (about one per round trip), so acknowledgements between two losses
   * cannot rebuild the window that the losses took.
   */
  private grow(newly: number): void {
    if (this.window < this.threshold) {
      this.window = Math.min(this.maxWindow, this.window + newly)
      return
    }
    this.growth += newly
    while (this.growth >= this.window && this.window < this.maxWindow) {
      this.growth -= this.window
      this.window++
    }
  }

  /** The probe timer fired: one more expiration, a longer timeout; the caller sends one probe. */
  onProbeTimeout(now: number, jitter: () => number): void {
    this.ptoCount++
    this.armPto(now, jitter)
  }

  /** Forgets packets whose segment another copy already delivered; true when nothing is left in flight. */
  pruneAcked(now: number, jitter: () => number): boolean {
    this.sent = this.sent.filter((packet) => {
      if (!packet.segment.acked) return true
      packet.segment.outstanding--
      return false
    })
    this.armPto(now, jitter)
    return this.sent.length === 0
  }

  deadline(): number {
    return Math.min(this.lossTime, this.ptoAt)
  }

  reset(): void {
    this.sent = []
    this.window = this.maxWindow
    this.threshold = Number.POSITIVE_INFINITY
    this.growth = 0
    this.reducedAt = Number.NEGATIVE_INFINITY
    this.retransmitBudget = 0
    this.roundEndsAt = Number.NEGATIVE_INFINITY
    this.largestAcked = -1
    this.ptoCount = 0
    this.lossTime = Number.POSITIVE_INFINITY
    this.ptoAt = Number.POSITIVE_INFINITY
  }

  private armPto(from: number, jitter: () => number): void {
    this.ptoAt =
      this.sent.length === 0
        ? Number.POSITIVE_INFINITY
        : from + this.rtt.timeout(this.ptoCount, jitter(), this.peerAckDelayMs)
  }
}
