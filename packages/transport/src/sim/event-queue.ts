import { sortSmall } from '../sort-small.js'

/** Something scheduled at virtual time `t`; `seq` breaks ties in scheduling order, which keeps runs deterministic. */
export interface Scheduled {
  t: number
  seq: number
  cancelled: boolean
}

const byTimeThenSeq = (a: Scheduled, b: Scheduled): number => a.t - b.t || a.seq - b.seq

/**
 * A 4-ary min-heap on (t, seq). Cancelled entries are skipped lazily on pop. The keys are kept in
 * typed arrays beside the events: a sift compares numbers side by side in memory instead of
 * reading each event object (with thousands in flight, every read was a cache miss), and four
 * children to a node halve the levels a pop goes down.
 */
export class EventQueue<E extends Scheduled> {
  private heap: E[] = []
  private times = new Float64Array(64)
  // Doubles: a long run's counter passes 2^31.
  private seqs = new Float64Array(64)
  private nextSeq = 0

  get size(): number {
    return this.heap.length
  }

  /** Assigns `seq` and inserts. */
  push(event: E): E {
    const seq = this.nextSeq++
    event.seq = seq
    const t = event.t
    const heap = this.heap
    let i = heap.length
    heap.push(event)
    if (i >= this.times.length) this.grow()
    const times = this.times
    const seqs = this.seqs
    while (i > 0) {
      const parent = (i - 1) >> 2
      const pt = times[parent]!
      if (pt < t || (pt === t && seqs[parent]! < seq)) break
      heap[i] = heap[parent]!
      times[i] = pt
      seqs[i] = seqs[parent]!
      i = parent
    }
    heap[i] = event
    times[i] = t
    seqs[i] = seq
    return event
  }

  /** The earliest live event, without removing it. */
  peek(): E | undefined {
    this.dropCancelled()
    return this.heap[0]
  }

  pop(): E | undefined {
    this.dropCancelled()
    return this.removeTop()
  }

  /** Every live event, in no particular order (for a scheduler that picks among them). */
  live(): E[] {
    return this.heap.filter((e) => !e.cancelled)
  }

  /** The first live event `match` accepts, in heap order (as `live().find`, without the copy). */
  findLive(match: (e: E) => boolean): E | undefined {
    for (const e of this.heap) if (!e.cancelled && match(e)) return e
    return undefined
  }

  /** Puts `swap(e)` in each entry's place: it must keep `t`, `seq` and `cancelled`. */
  replaceEach(swap: (e: E) => E): void {
    const heap = this.heap
    for (let i = 0; i < heap.length; i++) heap[i] = swap(heap[i]!)
  }

  clear(): void {
    this.heap = []
  }

  /** The next `seq` to be assigned (a checkpoint keeps it). */
  get seqCounter(): number {
    return this.nextSeq
  }

  /** Replaces the contents with `events` (their `seq` kept) and the seq counter: a checkpoint's load. */
  reset(events: E[], nextSeq: number): void {
    // Sorted by (t, seq), an array is a valid heap. In place: a checkpoint's events come in heap
    // order, nearly sorted, and `sort` would allocate a work area on every load.
    // A sorted array is a heap of any arity: each parent comes before its children.
    const heap = sortSmall(events, byTimeThenSeq)
    this.heap = heap
    if (heap.length > this.times.length) this.grow(heap.length)
    for (let i = 0; i < heap.length; i++) {
      this.times[i] = heap[i]!.t
      this.seqs[i] = heap[i]!.seq
    }
    this.nextSeq = nextSeq
  }

  /** Room for at least `needed` keys (double the room, at least). */
  private grow(needed = this.times.length + 1): void {
    let size = this.times.length * 2
    while (size < needed) size *= 2
    const times = new Float64Array(size)
    times.set(this.times)
    const seqs = new Float64Array(size)
    seqs.set(this.seqs)
    this.times = times
    this.seqs = seqs
  }

  private dropCancelled(): void {
    while (this.heap.length > 0 && this.heap[0]!.cancelled) this.removeTop()
  }

  private removeTop(): E | undefined {
    const heap = this.heap
    const top = heap[0]
    const last = heap.pop()
    if (top === undefined || last === undefined || heap.length === 0) return top
    const n = heap.length
    const times = this.times
    const seqs = this.seqs
    const t = times[n]!
    const seq = seqs[n]!
    let i = 0
    for (;;) {
      const first = 4 * i + 1
      if (first >= n) break
      // The least of up to four children.
      let c = first
      let ct = times[first]!
      let cs = seqs[first]!
      const end = Math.min(first + 4, n)
      for (let j = first + 1; j < end; j++) {
        const jt = times[j]!
        if (jt < ct || (jt === ct && seqs[j]! < cs)) {
          c = j
          ct = jt
          cs = seqs[j]!
        }
      }
      if (t < ct || (t === ct && seq < cs)) break
      heap[i] = heap[c]!
      times[i] = ct
      seqs[i] = cs
      i = c
    }
    heap[i] = last
    times[i] = t
    seqs[i] = seq
    return top
  }
}
