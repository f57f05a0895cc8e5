import type { FragmentInfo } from './wire/header.js'

/** Cuts a payload into pieces of at most `room` bytes (views, no copies). */
export function splitPayload(payload: Uint8Array, room: number): Uint8Array[] {
  const parts: Uint8Array[] = []
  for (let at = 0; at < payload.length; at += room) parts.push(payload.subarray(at, at + room))
  return parts
}

export type ReassemblyFailure = 'malformed' | 'oversized' | 'duplicate'

/**
 * What each held fragment is charged against the bound besides its payload: the map entry, the
 * copy's object header and the partial's share. Measured at about 150 bytes on Node 20; charged
 * generously so the documented bound holds as a bound on memory, not only on payload bytes.
 */
export const FRAGMENT_OVERHEAD_BYTES = 256

/**
 * Every fragment but the last carries at least this many bytes. Honest senders cut fragments of
 * more than 500 bytes (a datagram is at least 1200 bytes), so with the overhead a partial message
 * is charged at most 2 x maxMessageBytes.
 */
export const MIN_FRAGMENT_BYTES = 256

interface Partial {
  count: number
  parts: Map<number, Uint8Array>
  /** Payload bytes held. */
  bytes: number
  /** What the partial is charged against the bound (payload plus overhead per fragment). */
  charged: number
  startedAt: number
}

export interface ReassemblerOptions {
  maxMessageBytes: number
  /** Partial messages kept at once; a new one beyond this evicts the oldest. */
  maxPartial: number
  /** A partial message older than this is discarded (Infinity on reliable links, which never give up silently). */
  timeoutMs: number
  /** Told about each partial message thrown away by eviction or timeout. */
  onDiscard: (reason: 'reassembly-overflow' | 'reassembly-timeout') => void
}

/**
 * Rebuilds fragmented messages of one sender. Every held fragment is charged its payload plus
 * FRAGMENT_OVERHEAD_BYTES, and a partial message may be charged at most 2 x `maxMessageBytes`, so
 * the memory held is bounded by about `2 * maxPartial * maxMessageBytes`, whatever the sender sends. Fragments are copied out of their datagram,
 * so a small fragment does not keep a large datagram alive.
 */
export class Reassembler {
  private readonly partials = new Map<number, Partial>()

  constructor(private readonly options: ReassemblerOptions) {}

  get pending(): number {
    return this.partials.size
  }

  /** Returns the whole message once its last fragment arrives, a failure, or undefined while waiting. */
  add(
    frag: FragmentInfo,
    part: Uint8Array,
    now: number,
  ): Uint8Array | ReassemblyFailure | undefined {
    const { maxMessageBytes, maxPartial } = this.options
    let partial = this.partials.get(frag.msgId)
    if (partial === undefined) {
      if (this.partials.size >= maxPartial) {
        // Map iteration order is insertion order: the first key is the oldest.
        const oldest = this.partials.keys().next().value as number
        this.partials.delete(oldest)
        this.options.onDiscard('reassembly-overflow')
      }
      partial = { count: frag.count, parts: new Map(), bytes: 0, charged: 0, startedAt: now }
      this.partials.set(frag.msgId, partial)
    } else if (partial.count !== frag.count) {
      this.partials.delete(frag.msgId)
      return 'malformed'
    }
    if (partial.parts.has(frag.index)) return 'duplicate'
    if (part.length === 0 || (frag.index < frag.count - 1 && part.length < MIN_FRAGMENT_BYTES)) {
      return 'malformed'
    }
    partial.bytes += part.length
    partial.charged += part.length + FRAGMENT_OVERHEAD_BYTES
    if (partial.bytes > maxMessageBytes || partial.charged > 2 * maxMessageBytes) {
      this.partials.delete(frag.msgId)
      return 'oversized'
    }
    // A copy of exactly its bytes: Buffer#slice (what a received payload is) would be a view that
    // keeps the whole datagram alive. Uint8Array's slice copies whatever the subclass.
    partial.parts.set(frag.index, Uint8Array.prototype.slice.call(part))
    if (partial.parts.size < partial.count) return undefined
    this.partials.delete(frag.msgId)
    const whole = new Uint8Array(partial.bytes)
    let at = 0
    for (let i = 0; i < partial.count; i++) {
      const piece = partial.parts.get(i)!
      whole.set(piece, at)
      at += piece.length
    }
    return whole
  }

  /** Discards partial messages older than the timeout. */
  expire(now: number): void {
    for (const [id, partial] of this.partials) {
      if (now - partial.startedAt >= this.options.timeoutMs) {
        this.partials.delete(id)
        this.options.onDiscard('reassembly-timeout')
      }
    }
  }

  /** Bytes charged by every partial message held now. */
  get charged(): number {
    let total = 0
    for (const partial of this.partials.values()) total += partial.charged
    return total
  }

  clear(): void {
    this.partials.clear()
  }
}
