import { addChecked, checkCounter, checkIncrement } from './arguments.js'
import type { Ordering, VectorView } from './compare.js'
import { InvalidClockArgumentError } from './errors.js'
import { isNodeId, type NodeId } from './ids.js'

/** Entries as pairs (keeps number ids apart from string ids, unlike a plain object). */
export type SparseEntries = Iterable<readonly [NodeId, number]>

/**
 * A vector clock keyed by process id, for groups whose membership changes: a process that was
 * never heard of simply has no entry (read as 0). Costs O(k) per operation for k known processes.
 * Zero entries are never stored, so two equal clocks have the same entries.
 */
export class SparseVectorClock implements VectorView<NodeId> {
  readonly self: NodeId
  private readonly map: Map<NodeId, number>

  constructor(self: NodeId, entries?: SparseEntries) {
    if (!isNodeId(self)) {
      throw new InvalidClockArgumentError(
        `SparseVectorClock: self must be a finite number or a string, got ${String(self)}`,
      )
    }
    this.self = self
    this.map = new Map()
    if (entries !== undefined) {
      for (const [id, value] of entries) {
        if (!isNodeId(id)) {
          throw new InvalidClockArgumentError(
            `SparseVectorClock: entry key must be a finite number or a string, got ${String(id)}`,
          )
        }
        checkCounter(value, `SparseVectorClock entry ${JSON.stringify(id)}`)
        if (value > 0) this.map.set(id, value)
      }
    }
  }

  /** A clock from a plain object such as `{ A: 1, B: 3 }` (keys become string ids). */
  static fromObject(self: NodeId, object: Readonly<Record<string, number>>): SparseVectorClock {
    return new SparseVectorClock(self, Object.entries(object))
  }

  /** How many processes have a non-zero entry. */
  get size(): number {
    return this.map.size
  }

  /** This process's own entry. */
  get local(): number {
    return this.map.get(this.self) ?? 0
  }

  get(id: NodeId): number {
    return this.map.get(id) ?? 0
  }

  keys(): IterableIterator<NodeId> {
    return this.map.keys()
  }

  entries(): IterableIterator<[NodeId, number]> {
    return this.map.entries()
  }

  /** R1: V[self] += d. */
  tick(d = 1): this {
    if (d !== 1) checkIncrement(d, 'SparseVectorClock.tick')
    this.map.set(this.self, addChecked(this.local, d, 'SparseVectorClock.tick'))
    return this
  }

  /** V[k] = max(V[k], other[k]) for every k either side knows. */
  merge(other: SparseVectorClock): this {
    for (const [id, value] of other.map) {
      if (value > (this.map.get(id) ?? 0)) this.map.set(id, value)
    }
    return this
  }

  /** R2: merge, then R1. */
  receive(other: SparseVectorClock, d = 1): this {
    return this.merge(other).tick(d)
  }

  compare(other: SparseVectorClock): Ordering {
    let less = false
    let greater = false
    const a = this.map
    const b = other.map
    for (const [id, x] of a) {
      const y = b.get(id) ?? 0
      if (x < y) less = true
      else if (x > y) greater = true
    }
    if (less && greater) return 'concurrent'
    // A key only `other` has makes it larger there; equal sizes and no such key means equal keys.
    if (!less) {
      for (const id of b.keys()) {
        if (!a.has(id)) {
          less = true
          break
        }
      }
    }
    if (less && greater) return 'concurrent'
    return less ? 'before' : greater ? 'after' : 'equal'
  }

  happenedBefore(other: SparseVectorClock): boolean {
    return this.compare(other) === 'before'
  }

  isConcurrent(other: SparseVectorClock): boolean {
    return this.compare(other) === 'concurrent'
  }

  equals(other: SparseVectorClock): boolean {
    return this.compare(other) === 'equal'
  }

  sum(): number {
    let s = 0
    for (const v of this.map.values()) s += v
    return s
  }

  /** #(e) = sum - 1. */
  predecessors(): number {
    return this.sum() - 1
  }

  /**
   * Drops a departed member's entry. Only safe once every clock that will be compared with this
   * one has dropped it too (otherwise comparisons see a spurious 'before').
   */
  forget(id: NodeId): this {
    this.map.delete(id)
    return this
  }

  snapshot(): SparseVectorClock {
    const copy = new SparseVectorClock(this.self)
    for (const [id, v] of this.map) copy.map.set(id, v)
    return copy
  }

  clone(): SparseVectorClock {
    return this.snapshot()
  }

  /** `{ "A": 1, "B": 3 }`, the GoVector/ShiViz shape. Number and string ids with the same text collide: see `toJSON` for a lossless form. */
  toObject(): Record<string, number> {
    const out: Record<string, number> = {}
    for (const [id, v] of this.map) out[String(id)] = v
    return out
  }

  toString(): string {
    return JSON.stringify(this.toObject())
  }

  toJSON(): { kind: 'vector-sparse'; self: NodeId; entries: [NodeId, number][] } {
    return { kind: 'vector-sparse', self: this.self, entries: [...this.map.entries()] }
  }
}
