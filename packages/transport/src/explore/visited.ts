/**
 * The stateful explorer's visited set: per state hash, the depth that was left below it and, when
 * that visit left choices asleep, their labels. Millions of states: an open-addressing table over
 * typed arrays (16 bytes a slot) instead of a Map of hex strings (100 bytes and more a state).
 * Sleep sets are interned: states share the few distinct ones, each kept once.
 */
import type { Hash64 } from '../hash64.js'
import { sortSmall } from '../sort-small.js'

const EMPTY = 0
const INITIAL = 1 << 12

export class VisitedTable {
  private hi = new Uint32Array(INITIAL)
  private lo = new Uint32Array(INITIAL)
  /** Depth left plus one; 0: an empty slot. */
  private lefts = new Int32Array(INITIAL)
  /** Index plus one into `sleeps` of what was left asleep; 0: nothing. */
  private asleepAt = new Int32Array(INITIAL)
  private readonly sleeps: Array<ReadonlySet<string>> = []
  /** A sleep set's index by its labels' ids, ascending. */
  private readonly sleepIds = new Map<string, number>()
  private readonly labelIds = new Map<string, number>()
  private mask = INITIAL - 1
  size = 0

  /** The state's slot when met before, else -1. */
  find(h: Hash64): number {
    const slot = this.probe(h.hi, h.lo)
    return this.lefts[slot] === EMPTY ? -1 : slot
  }

  /** The depth that was left below the state at `slot`. */
  left(slot: number): number {
    return this.lefts[slot]! - 1
  }

  /** What its visit left asleep (empty: nothing). */
  asleep(slot: number): ReadonlySet<string> | undefined {
    const at = this.asleepAt[slot]!
    return at === 0 ? undefined : this.sleeps[at - 1]
  }

  /** Records the state (new, or met before at `slot`) with the depth left and what is asleep. */
  set(h: Hash64, slot: number, left: number, asleep: ReadonlySet<string> | undefined): void {
    let at = slot
    if (at < 0) {
      if ((this.size + 1) * 4 > this.lefts.length * 3) this.grow()
      at = this.probe(h.hi, h.lo)
      this.hi[at] = h.hi
      this.lo[at] = h.lo
      this.size++
    }
    this.lefts[at] = left + 1
    this.asleepAt[at] = asleep === undefined || asleep.size === 0 ? 0 : this.intern(asleep) + 1
  }

  /** The index of the sleep set with these labels, kept once. */
  private intern(asleep: ReadonlySet<string>): number {
    const ids: number[] = []
    for (const label of asleep) {
      let id = this.labelIds.get(label)
      if (id === undefined) {
        id = this.labelIds.size
        this.labelIds.set(label, id)
      }
      ids.push(id)
    }
    const name = sortSmall(ids, (a, b) => a - b).join(',')
    let index = this.sleepIds.get(name)
    if (index === undefined) {
      index = this.sleeps.length
      this.sleeps.push(asleep)
      this.sleepIds.set(name, index)
    }
    return index
  }

  /** The slot holding the hash, or the empty one where it would go (linear probing). */
  private probe(hi: number, lo: number): number {
    let slot = (lo ^ Math.imul(hi, 0x9e3779b1)) & this.mask
    while (this.lefts[slot] !== EMPTY && (this.hi[slot] !== hi || this.lo[slot] !== lo))
      slot = (slot + 1) & this.mask
    return slot
  }

  private grow(): void {
    const { hi, lo, lefts, asleepAt } = this
    const n = lefts.length * 2
    this.hi = new Uint32Array(n)
    this.lo = new Uint32Array(n)
    this.lefts = new Int32Array(n)
    this.asleepAt = new Int32Array(n)
    this.mask = n - 1
    for (let i = 0; i < lefts.length; i++) {
      if (lefts[i] === EMPTY) continue
      const slot = this.probe(hi[i]!, lo[i]!)
      this.hi[slot] = hi[i]!
      this.lo[slot] = lo[i]!
      this.lefts[slot] = lefts[i]!
      this.asleepAt[slot] = asleepAt[i]!
    }
  }
}
