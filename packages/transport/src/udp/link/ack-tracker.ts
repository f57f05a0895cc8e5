import { type AckRanges, encodableAckRanges } from '../wire/ack-block.js'

/** Ranges remembered; older ones fall off (their packets were acknowledged many times over). */
const MAX_TRACKED_RANGES = 64

/**
 * Receiving side of acknowledgements: which packet numbers of the peer's current incarnation
 * arrived, as ranges, newest first. A datagram whose content was refused is never recorded,
 * so the sender retransmits it.
 */
export class AckTracker {
  /** [hi0, lo0, hi1, lo1, ...], descending, with gaps between ranges. */
  private ranges: AckRanges = []
  /** Something arrived that the peer must hear about. */
  owed = false
  /** Data datagrams recorded since the last acknowledgement left. */
  unreported = 0
  /** When a held (delayed) acknowledgement must leave alone; Infinity when none is held. */
  dueAt = Number.POSITIVE_INFINITY
  /** Highest packet number seen from the peer's current incarnation, any type. */
  private largestSeen = -1

  /**
   * Notes a datagram of the peer's current incarnation; true when it did not come right after the
   * previous one (a gap: something was lost or reordered, or a first datagram after a handshake),
   * which the sender must hear about at once.
   */
  observe(pn: number): boolean {
    const next = pn === this.largestSeen + 1
    if (pn > this.largestSeen) this.largestSeen = pn
    return !next
  }

  record(pn: number): void {
    this.owed = true
    this.unreported++
    const r = this.ranges
    if (r.length === 0 || pn > r[0]! + 1) {
      r.unshift(pn, pn)
      if (r.length > 2 * MAX_TRACKED_RANGES) r.length = 2 * MAX_TRACKED_RANGES
      return
    }
    for (let k = 0; k < r.length; k += 2) {
      const hi = r[k]!
      const lo = r[k + 1]!
      if (pn > hi + 1) {
        r.splice(k, 0, pn, pn) // a new range between two older ones
        if (r.length > 2 * MAX_TRACKED_RANGES) r.length = 2 * MAX_TRACKED_RANGES
        return
      }
      if (pn === hi + 1) {
        r[k] = pn
        return
      }
      if (pn >= lo) return // already known
      if (pn === lo - 1) {
        r[k + 1] = pn
        // Joined the next (lower) range?
        if (k + 2 < r.length && r[k + 2] === pn - 1) {
          r[k + 1] = r[k + 3]!
          r.splice(k + 2, 2)
        }
        return
      }
    }
    if (r.length < 2 * MAX_TRACKED_RANGES) r.push(pn, pn) // older than everything remembered
  }

  /** What an acknowledgement sent now carries (and forgets what was owed), or undefined when nothing arrived yet. */
  block(): AckRanges | undefined {
    this.owed = false
    this.unreported = 0
    this.dueAt = Number.POSITIVE_INFINITY
    return this.ranges.length === 0 ? undefined : encodableAckRanges(this.ranges)
  }

  reset(): void {
    this.ranges = []
    this.owed = false
    this.unreported = 0
    this.dueAt = Number.POSITIVE_INFINITY
    this.largestSeen = -1
  }
}
