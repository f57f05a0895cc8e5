import { InvalidClockArgumentError } from './errors.js'
import type { NodeId } from './ids.js'

/**
 * Ground truth for happens-before: record the events of an execution in an order that respects
 * causality (a receive after its send), and ask whether a -> b, by transitive closure kept as one
 * bitset per event. O(E^2 / 32) words of memory for E events: meant for tests, checkers and
 * teaching, not for production traffic (that is what vector clocks are for).
 */
export class CausalHistory {
  private readonly rows: Uint32Array[] = []
  private readonly owners: NodeId[] = []
  private readonly lastOf = new Map<NodeId, number>()

  /** The number of events recorded. */
  get size(): number {
    return this.rows.length
  }

  /**
   * Records the next event of `process`. `causes` are earlier events of other processes that
   * directly precede it (the send of a message this event receives). Returns the event's index.
   */
  record(process: NodeId, causes: readonly number[] = []): number {
    const e = this.rows.length
    const row = new Uint32Array((e >> 5) + 1)
    const previous = this.lastOf.get(process)
    const direct = previous === undefined ? [...causes] : [previous, ...causes]
    for (const c of direct) {
      if (!Number.isInteger(c) || c < 0 || c >= e) {
        throw new InvalidClockArgumentError(
          `CausalHistory.record: cause ${c} is not an earlier event (0..${e - 1})`,
        )
      }
      const from = this.rows[c]!
      for (let w = 0; w < from.length; w++) row[w] = row[w]! | from[w]!
      row[c >> 5] = row[c >> 5]! | (1 << (c & 31))
    }
    this.rows.push(row)
    this.owners.push(process)
    this.lastOf.set(process, e)
    return e
  }

  /** The process of event `e`. */
  processOf(e: number): NodeId {
    this.check(e)
    return this.owners[e]!
  }

  /** a -> b. */
  happenedBefore(a: number, b: number): boolean {
    this.check(a)
    this.check(b)
    if (a >= b) return false
    return ((this.rows[b]![a >> 5]! >>> (a & 31)) & 1) === 1
  }

  /** a || b: distinct and unordered. */
  concurrent(a: number, b: number): boolean {
    return a !== b && !this.happenedBefore(a, b) && !this.happenedBefore(b, a)
  }

  /** How many events precede `e`: #(e). */
  predecessors(e: number): number {
    this.check(e)
    let count = 0
    for (let w of this.rows[e]!) {
      while (w !== 0) {
        w &= w - 1
        count++
      }
    }
    return count
  }

  /**
   * Whether the cut whose frontier is `frontier` (one event per included process; a process not
   * listed has no event in the cut) is consistent: left-closed under happens-before.
   */
  isConsistentCut(frontier: readonly number[]): boolean {
    const last = new Map<NodeId, number>()
    for (const e of frontier) {
      this.check(e)
      const p = this.owners[e]!
      if (last.has(p)) {
        throw new InvalidClockArgumentError(
          `CausalHistory.isConsistentCut: process ${JSON.stringify(p)} appears twice in the frontier`,
        )
      }
      last.set(p, e)
    }
    // Every predecessor of a frontier event must be in the cut: at or before its process's frontier.
    for (const e of frontier) {
      const row = this.rows[e]!
      for (let w = 0; w < row.length; w++) {
        let bits = row[w]!
        while (bits !== 0) {
          const low = bits & -bits
          const f = (w << 5) + (31 - Math.clz32(low))
          bits ^= low
          const bound = last.get(this.owners[f]!)
          if (bound === undefined || f > bound) return false
        }
      }
    }
    return true
  }

  private check(e: number): void {
    if (!Number.isInteger(e) || e < 0 || e >= this.rows.length) {
      throw new InvalidClockArgumentError(
        `CausalHistory: no event ${e} (0..${this.rows.length - 1})`,
      )
    }
  }
}
