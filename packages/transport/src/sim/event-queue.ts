import { sortSmall } from '../sort-small.js'

/** Something scheduled at virtual time `t`; `seq` breaks ties in scheduling order, which keeps runs deterministic. */
export interface Scheduled {
  t: number
  seq: number
  cancelled: boolean
}

const byTimeThenSeq = (a: Scheduled, b: Scheduled): number => a.t - b.t || a.seq - b.seq

/** A binary min-heap on (t, seq). Cancelled entries are skipped lazily on pop. */
export class EventQueue<E extends Scheduled> {
  private heap: E[] = []
  private nextSeq = 0

  get size(): number {
    return this.heap.length
  }

  /** Assigns `seq` and inserts. */
  push(event: E): E {
    event.seq = this.nextSeq++
    const heap = this.heap
    let i = heap.length
    heap.push(event)
    while (i > 0) {
      const parent = (i - 1) >> 1
      const p = heap[parent]!
      if (p.t < event.t || (p.t === event.t && p.seq < event.seq)) break
      heap[i] = p
      i = parent
    }
    heap[i] = event
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

  /** `pop` right after a `peek` that returned an event: the cancelled ones are gone already. */
  popPeeked(): E {
    return this.removeTop()!
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
    this.heap = sortSmall(events, byTimeThenSeq)
    this.nextSeq = nextSeq
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
    let i = 0
    for (;;) {
      const l = 2 * i + 1
      if (l >= n) break
      const r = l + 1
      let c = l
      let child = heap[l]!
      if (r < n) {
        const right = heap[r]!
        if (right.t < child.t || (right.t === child.t && right.seq < child.seq)) {
          c = r
          child = right
        }
      }
      if (last.t < child.t || (last.t === child.t && last.seq < child.seq)) break
      heap[i] = child
      i = c
    }
    heap[i] = last
    return top
  }
}
