/**
 * The stateful explorer's visited set: per state hash, the depth that was left below it and, when
 * that visit left choices asleep, their labels. Millions of states: an open-addressing table over
 * typed arrays (16 bytes a slot) instead of a Map of hex strings (100 bytes and more a state).
 * A slot's four words sit side by side in one array: a probe reads one cache line, not three.
 * Sleep sets are interned: states share the few distinct ones, each kept once.
 */
import type { Hash64 } from '../hash64.js'
import { sortSmall } from '../sort-small.js'

const EMPTY = 0
const INITIAL = 1 << 12
/** A slot's words after its hash: depth left plus one, asleep index plus one. */
const LEFT = 2
const ASLEEP = 3

export class VisitedTable {
  /** Per slot: hash hi, hash lo, depth left plus one (0: an empty slot), asleep index plus one. */
  private slots = new Int32Array(INITIAL * 4)
  private readonly sleeps: Array<ReadonlySet<string>> = []
  /** A sleep set's index by its labels' ids, ascending. */
  private readonly sleepIds = new Map<string, number>()
  private readonly labelIds = new Map<string, number>()
  private mask = INITIAL - 1
  /** Where the last `find` that missed would have put its hash, and that hash: a `set` of it goes there. */
  private missed = -1
  private missedHi = 0
  private missedLo = 0
  size = 0

  /** The state's slot when met before, else -1. */
  find(h: Hash64): number {
    const slot = this.probe(h.hi | 0, h.lo | 0)
    if (this.slots[4 * slot + LEFT] !== EMPTY) return slot
    this.missed = slot
    this.missedHi = h.hi | 0
    this.missedLo = h.lo | 0
    return -1
  }

  /** The depth that was left below the state at `slot`. */
  left(slot: number): number {
    return this.slots[4 * slot + LEFT]! - 1
  }

  /** What its visit left asleep (empty: nothing). */
  asleep(slot: number): ReadonlySet<string> | undefined {
    const at = this.slots[4 * slot + ASLEEP]!
    return at === 0 ? undefined : this.sleeps[at - 1]
  }

  /** Records the state (new, or met before at `slot`) with the depth left and what is asleep. */
  set(h: Hash64, slot: number, left: number, asleep: ReadonlySet<string> | undefined): void {
    let at = slot
    if (at < 0) {
      const hi = h.hi | 0
      const lo = h.lo | 0
      if ((this.size + 1) * 4 > (this.mask + 1) * 3) {
        this.grow()
        this.missed = -1
      }
      const s = this.slots
      // With nothing put in since, the empty slot `find` stopped at is still where a probe ends.
      const reuse =
        this.missed >= 0 &&
        this.missedHi === hi &&
        this.missedLo === lo &&
        s[4 * this.missed + LEFT] === EMPTY
      at = reuse ? this.missed : this.probe(hi, lo)
      this.missed = -1
      s[4 * at] = hi
      s[4 * at + 1] = lo
      this.size++
    }
    this.slots[4 * at + LEFT] = left + 1
    this.slots[4 * at + ASLEEP] =
      asleep === undefined || asleep.size === 0 ? 0 : this.intern(asleep) + 1
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
    const s = this.slots
    let slot = (lo ^ Math.imul(hi, 0x9e3779b1)) & this.mask
    while (s[4 * slot + LEFT] !== EMPTY && (s[4 * slot] !== hi || s[4 * slot + 1] !== lo))
      slot = (slot + 1) & this.mask
    return slot
  }

  private grow(): void {
    const old = this.slots
    const n = (this.mask + 1) * 2
    this.slots = new Int32Array(n * 4)
    this.mask = n - 1
    for (let i = 0; i < old.length; i += 4) {
      if (old[i + LEFT] === EMPTY) continue
      const at = 4 * this.probe(old[i]!, old[i + 1]!)
      for (let w = 0; w < 4; w++) this.slots[at + w] = old[i + w]!
    }
  }
}
