import type { FragmentInfo } from './wire/header.js'

/** Signed distance a - b between 32-bit sequence numbers (serial number arithmetic, RFC 1982). */
export function seqDiff(a: number, b: number): number {
  return (a - b) | 0
}

/** One application message on its way out; its payload is kept so it can be re-cut after a peer restart. */
export interface OutMessage {
  payload: Uint8Array
}

/** What travels in one data datagram. */
export interface OutSegment {
  seq: number
  payload: Uint8Array
  frag: FragmentInfo | undefined
  message: OutMessage
  /** The last segment of its message: when it is acknowledged, the whole message is. */
  last: boolean
  attempts: number
  firstSentAt: number
  deadline: number
  /** The receiver holds it out of order: do not retransmit. */
  sacked: boolean
}

/**
 * Sending half of a reliable FIFO link to one peer incarnation: sequence numbers,
 * a bounded flight window, cumulative and selective acknowledgements. Timers live in the transport.
 */
export class SendLink {
  nextSeq = 0
  /** Sent, not yet cumulatively acknowledged, ascending by seq. */
  inFlight: OutSegment[] = []
  /** Accepted by send, not yet given a sequence number (window full or handshake pending). */
  waiting: OutSegment[] = []
  /** Messages and payload bytes not yet acknowledged: what backpressure is measured on. */
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

  /** Moves the next waiting segment into flight, or returns undefined when the window is full. */
  launch(window: number): OutSegment | undefined {
    if (this.inFlight.length >= window) return undefined
    const segment = this.waiting.shift()
    if (segment === undefined) return undefined
    segment.seq = this.nextSeq
    this.nextSeq = (this.nextSeq + 1) >>> 0
    this.inFlight.push(segment)
    return segment
  }

  /**
   * Applies an acknowledgement: everything below `ack` arrived; bit i of `sack` = ack+1+i arrived.
   * Returns an RTT sample (ms) from a segment sent only once, or -1. Acks beyond what was sent are ignored.
   */
  acknowledge(ack: number, sack: number, now: number): number {
    if (seqDiff(ack, this.nextSeq) > 0) return -1
    let rtt = -1
    const flight = this.inFlight
    let done = 0
    while (done < flight.length && seqDiff(flight[done]!.seq, ack) < 0) {
      const segment = flight[done]!
      if (segment.attempts === 1) rtt = now - segment.firstSentAt
      if (segment.last) {
        this.messages--
        this.bytes -= segment.message.payload.length
      }
      done++
    }
    if (done > 0) this.inFlight = done === flight.length ? [] : flight.slice(done)
    if (sack !== 0) {
      for (const segment of this.inFlight) {
        const bit = seqDiff(segment.seq, ack) - 1
        if (bit >= 0 && bit < 32 && (sack >>> bit) & 1) segment.sacked = true
      }
    }
    return rtt
  }

  /** Earliest retransmission deadline, or Infinity. */
  nextDeadline(): number {
    let at = Number.POSITIVE_INFINITY
    for (const segment of this.inFlight)
      if (!segment.sacked && segment.deadline < at) at = segment.deadline
    return at
  }

  /** Forgets everything queued; returns the number of messages that were not acknowledged. */
  abandon(): number {
    const dropped = this.messages
    this.inFlight = []
    this.waiting = []
    this.messages = 0
    this.bytes = 0
    return dropped
  }

  /**
   * For a peer that restarted: every unacknowledged message, in order, to be re-cut and resent
   * from sequence number 0 to the new incarnation. Resets the link.
   */
  takeUnacknowledged(): OutMessage[] {
    const out: OutMessage[] = []
    let previous: OutMessage | undefined
    for (const segment of [...this.inFlight, ...this.waiting]) {
      if (segment.message !== previous) out.push(segment.message)
      previous = segment.message
    }
    this.abandon()
    this.nextSeq = 0
    return out
  }
}

/**
 * Receiving half: delivers in sequence order exactly once, buffering at most `window`
 * segments that arrive early. Anything further ahead is refused (the sender retransmits it).
 */
export class ReceiveLink<T> {
  expected = 0
  private readonly early = new Map<number, T>()

  constructor(private readonly window: number) {}

  /**
   * Offers a segment. `base` (the sender's oldest unacknowledged seq) lets the receiver skip
   * sequence numbers the sender gave up on; `onSkip` is told how many.
   */
  receive(
    seq: number,
    base: number,
    item: T,
    deliver: (item: T) => void,
    onSkip: (count: number) => void,
  ): 'duplicate' | 'out-of-window' | undefined {
    const gap = seqDiff(base, this.expected)
    if (gap > 0 && gap <= 0x7fffffff) {
      for (const key of this.early.keys()) if (seqDiff(key, base) < 0) this.early.delete(key)
      this.expected = base >>> 0
      onSkip(gap)
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
    while (this.early.size > 0) {
      const next = this.early.get(this.expected)
      if (next === undefined) break
      this.early.delete(this.expected)
      this.expected = (this.expected + 1) >>> 0
      deliver(next)
    }
    return undefined
  }

  /** Bit i set = expected+1+i is buffered. */
  sack(): number {
    if (this.early.size === 0) return 0
    let bits = 0
    for (let i = 0; i < 32; i++) if (this.early.has((this.expected + 1 + i) >>> 0)) bits |= 1 << i
    return bits >>> 0
  }

  get buffered(): number {
    return this.early.size
  }

  reset(): void {
    this.expected = 0
    this.early.clear()
  }
}
