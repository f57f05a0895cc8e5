import { bundledBytes, encodeBundle, type FragmentInfo } from '../wire/header.js'

/** Signed distance a - b between 32-bit sequence numbers (serial number arithmetic, RFC 1982). */
export function seqDiff(a: number, b: number): number {
  return (a - b) | 0
}

/** One application message on its way out; its payload is kept so it can be re-cut after a peer restart. */
export interface OutMessage {
  payload: Uint8Array
}

/** What travels in one data datagram, however many times it is transmitted. */
export interface OutSegment {
  seq: number
  payload: Uint8Array
  frag: FragmentInfo | undefined
  message: OutMessage
  /** The last segment of its message: when it is acknowledged, the whole message is. */
  last: boolean
  acked: boolean
  /** Transmissions of it not yet acknowledged nor declared lost. */
  outstanding: number
  /** Declared lost and waiting in the retransmission queue. */
  queued: boolean
  /** A bundle: the whole messages it carries, in order (`message` is the first). */
  bundled?: OutMessage[]
}

export function newSegment(
  payload: Uint8Array,
  frag: FragmentInfo | undefined,
  message: OutMessage,
  last: boolean,
): OutSegment {
  return { seq: 0, payload, frag, message, last, acked: false, outstanding: 0, queued: false }
}

/**
 * The sending half of a reliable FIFO link to one peer incarnation: sequence numbers, a bounded
 * window of segments in flight, and the count of unacknowledged messages and bytes that
 * backpressure is measured on. Which transmission was acknowledged or lost is LossRecovery's business.
 */
export class SendQueue {
  nextSeq = 0
  /** Sent and not yet acknowledged in order, ascending by seq (acknowledged ones may sit behind a hole). */
  inFlight: OutSegment[] = []
  /** Accepted by send, not yet given a sequence number (window full or handshake pending). */
  waiting: OutSegment[] = []
  /** Declared lost: sent again before anything new. */
  lost: OutSegment[] = []
  /** Segments in flight not yet acknowledged (what the window limits). */
  unacked = 0
  messages = 0
  bytes = 0

  enqueue(message: OutMessage, segments: OutSegment[]): void {
    this.messages++
    this.bytes += message.payload.length
    for (const segment of segments) this.waiting.push(segment)
  }

  /** The lowest seq that may still be retransmitted; the receiver may skip anything below. */
  base(): number {
    return this.inFlight[0]?.seq ?? this.nextSeq
  }

  /**
   * Moves the next waiting segment into flight, or returns undefined when `window` segments are
   * unacknowledged or the flight spans `span` sequence numbers (what the receiver can buffer).
   * Counting unacknowledged segments rather than the span keeps new data flowing past a hole,
   * and new data is what reveals a lost retransmission without waiting for a timeout.
   * Whole messages that waited together leave together, bundled into one segment of at most `room` bytes.
   */
  launch(window: number, span: number, room: number): OutSegment | undefined {
    if (this.unacked >= window || seqDiff(this.nextSeq, this.base()) >= span) return undefined
    let segment = this.waiting.shift()
    if (segment === undefined) return undefined
    // An empty message travels alone: the receiver refuses bundles holding one (they cost a
    // decode each and carry nothing).
    if (segment.frag === undefined && segment.payload.length > 0 && this.waiting.length > 0) {
      segment = this.bundle(segment, room)
    }
    segment.seq = this.nextSeq
    this.nextSeq = (this.nextSeq + 1) >>> 0
    this.inFlight.push(segment)
    this.unacked++
    return segment
  }

  /** `first` and the whole messages waiting behind it that fit in `room`, as one segment. */
  private bundle(first: OutSegment, room: number): OutSegment {
    let total = bundledBytes(first.payload.length)
    let count = 0
    for (const next of this.waiting) {
      if (next.frag !== undefined || next.payload.length === 0) break
      if (total + bundledBytes(next.payload.length) > room) break
      total += bundledBytes(next.payload.length)
      count++
    }
    if (count === 0) return first
    const members = [first, ...this.waiting.splice(0, count)]
    const payload = encodeBundle(
      members.map((m) => m.payload),
      total,
    )
    const segment = newSegment(payload, undefined, first.message, true)
    segment.bundled = members.map((m) => m.message)
    return segment
  }

  /** `count` segments in flight were acknowledged for the first time. */
  acknowledged(count: number): void {
    this.unacked -= count
  }

  /** The next segment declared lost that still needs sending. */
  nextLost(): OutSegment | undefined {
    let segment = this.lost.shift()
    while (segment?.acked) {
      segment.queued = false
      segment = this.lost.shift()
    }
    if (segment !== undefined) segment.queued = false
    return segment
  }

  /** The oldest segment not yet acknowledged (what a probe carries). */
  oldestUnacked(): OutSegment | undefined {
    for (const segment of this.inFlight) if (!segment.acked) return segment
    return undefined
  }

  /** Drops the acknowledged prefix of the flight, settling the messages it completes. */
  release(): boolean {
    const flight = this.inFlight
    let done = 0
    while (done < flight.length && flight[done]!.acked) {
      const segment = flight[done]!
      if (segment.bundled) {
        for (const message of segment.bundled) this.settle(message)
      } else if (segment.last) {
        this.settle(segment.message)
      }
      done++
    }
    // In place: one message in flight (a ping-pong) must not cost an array per acknowledgement.
    if (done === flight.length) flight.length = 0
    else if (done > 0) flight.splice(0, done)
    return done > 0
  }

  private settle(message: OutMessage): void {
    this.messages--
    this.bytes -= message.payload.length
  }

  /** Forgets everything queued; returns the number of messages that were not acknowledged. */
  abandon(): number {
    const dropped = this.messages
    this.inFlight = []
    this.waiting = []
    this.lost = []
    this.unacked = 0
    this.messages = 0
    this.bytes = 0
    return dropped
  }

  /**
   * For a peer that restarted: every unacknowledged message, in order, to be re-cut and resent
   * from sequence number 0 to the new incarnation. Resets the queue.
   */
  takeUnacknowledged(): OutMessage[] {
    const out: OutMessage[] = []
    const seen = new Set<OutMessage>()
    // Acknowledged segments still in flight sit behind a hole: the receiver held them without
    // delivering, and a receiver that restarted has lost them. Only the released prefix is delivered.
    for (const segment of [...this.inFlight, ...this.waiting]) {
      for (const message of segment.bundled ?? [segment.message]) {
        if (seen.has(message)) continue
        seen.add(message)
        out.push(message)
      }
    }
    this.abandon()
    this.nextSeq = 0
    return out
  }
}

/** Skipped ranges remembered: a late datagram in one is refused, never acknowledged as a duplicate. */
export const SKIPPED_RANGES = 8

/** Why a data datagram's content is refused (and so not acknowledged). */
export type SeqRefusal = 'out-of-window' | 'implausible'

/**
 * The receiving half: delivers in sequence order exactly once, buffering at most `window`
 * segments that arrive early. Anything further ahead is refused (the sender retransmits it).
 *
 * A sender keeps at most `window` sequence numbers in flight, so the `base` it sends (below which
 * it gave up or was acknowledged) is at most `window` past what this side already acknowledged.
 * A base further ahead is refused as implausible (a key holder's base of expected + 2^31 - 1 would
 * otherwise turn every later real message into an acknowledged "duplicate"); a real one that far
 * (several give-ups in a row during an outage) is believed once after a fresh handshake (`allowSkip`).
 */
export class ReceiveLink<T> {
  expected = 0
  private readonly early = new Map<number, T>()
  /** Ranges [from, to) skipped on the sender's word, newest last. */
  private readonly skippedRanges: Array<{ from: number; to: number }> = []
  /** A fresh handshake answer vouched for the peer: its next base is believed whatever its distance. */
  private skipAllowed = false

  constructor(private readonly window: number) {}

  /** Lets the next admitted datagram skip any distance (the peer just answered our challenge). */
  allowSkip(): void {
    this.skipAllowed = true
  }

  /**
   * Offers a segment that `refusal` let through. `base` (the sender's oldest unacknowledged seq)
   * lets the receiver skip sequence numbers the sender gave up on; `onSkip` is told how many.
   */
  receive(
    seq: number,
    base: number,
    item: T,
    deliver: (item: T) => void,
    onSkip: (count: number) => void,
  ): 'duplicate' | 'out-of-window' | undefined {
    const gap = seqDiff(base, this.expected)
    if (gap > 0) {
      // What was held is delivered, not thrown away: it was acknowledged.
      const held = [...this.early.keys()]
        .filter((key) => seqDiff(key, base) < 0)
        .sort((x, y) => seqDiff(x, y))
      for (const key of held) {
        const next = this.early.get(key)!
        this.early.delete(key)
        deliver(next)
      }
      this.skippedRanges.push({ from: this.expected, to: base >>> 0 })
      if (this.skippedRanges.length > SKIPPED_RANGES) this.skippedRanges.shift()
      this.expected = base >>> 0
      onSkip(gap - held.length)
    }
    const ahead = seqDiff(seq, this.expected)
    if (ahead < 0) return 'duplicate'
    if (ahead >= this.window) return 'out-of-window'
    if (ahead > 0) {
      if (this.early.has(seq)) return 'duplicate'
      this.early.set(seq, item)
      return undefined
    }
    this.expected = (this.expected + 1) >>> 0
    deliver(item)
    this.drain(deliver)
    return undefined
  }

  /** `seq` is the very next one, with nothing to skip: it can be delivered at once. */
  isNext(seq: number, base: number): boolean {
    return seq === this.expected && seqDiff(base, this.expected) <= 0
  }

  /** Counts the next one as delivered (after `isNext`). */
  advance(): void {
    this.expected = (this.expected + 1) >>> 0
  }

  /** Delivers, in order, what was held and is now next. */
  drain(deliver: (item: T) => void): void {
    while (this.early.size > 0) {
      const next = this.early.get(this.expected)
      if (next === undefined) return
      this.early.delete(this.expected)
      this.expected = (this.expected + 1) >>> 0
      deliver(next)
    }
  }

  /**
   * Why `seq` is refused, or undefined when it is taken (delivered, held or recognised as a
   * duplicate); then `receive` or `isNext` follows. Uses up the skip allowance. Refused: a base or seq too far ahead, a base below the seq it comes with, or a
   * seq the sender gave up on (skipped): acknowledging it as a duplicate would lose it silently.
   */
  refusal(seq: number, base: number): SeqRefusal | undefined {
    const gap = seqDiff(base, this.expected)
    if (gap > this.window && !this.skipAllowed) return 'implausible'
    if (seqDiff(seq, base) < 0) return 'implausible' // a sender's base never passes what it sends
    const from = gap > 0 ? base : this.expected
    if (seqDiff(seq, from) >= this.window) return 'out-of-window'
    if (seqDiff(seq, this.expected) < 0 && this.wasSkipped(seq)) return 'implausible'
    this.skipAllowed = false
    return undefined
  }

  private wasSkipped(seq: number): boolean {
    for (const range of this.skippedRanges) {
      if (seqDiff(seq, range.from) >= 0 && seqDiff(seq, range.to) < 0) return true
    }
    return false
  }

  get buffered(): number {
    return this.early.size
  }

  reset(): void {
    this.expected = 0
    this.early.clear()
    this.skippedRanges.length = 0
    this.skipAllowed = false
  }
}
