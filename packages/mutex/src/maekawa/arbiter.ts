import { compareLamport } from '@sd/clocks'
import type { NodeId } from '@sd/transport'
import { orNull, type Snapshot } from '../snapshot.js'
import type { Unstamped } from './messages.js'
import type { MaekawaCtx } from './protocol.js'

export interface RequestRef {
  req: number
  by: NodeId
}
/** Sends (or hands to this node itself) a message, through the handler's `ctx`. */
type Out = (to: NodeId, msg: Unstamped, ctx: MaekawaCtx) => void

const order = (a: RequestRef, b: RequestRef) =>
  compareLamport({ time: a.req, pid: a.by }, { time: b.req, pid: b.by })
const same = (a: RequestRef | undefined, b: RequestRef) =>
  a !== undefined && a.req === b.req && a.by === b.by

/**
 * One node's vote, as a member of other nodes' quorums: granted to one request at a time, the
 * others queued by timestamp. Returns false for a message about a request it does not know.
 */
export class Arbiter {
  private lock: RequestRef | undefined
  private inquired = false
  /** Waiting requests, earliest first; `failed` once told an earlier one is ahead. */
  private queue: Array<RequestRef & { failed: boolean }> = []
  /** Highest fencing token released to this member. */
  private fence = 0

  constructor(private readonly out: Out) {}

  /** The vote's state as plain data; the queue is kept in timestamp order. */
  snapshot(): Snapshot {
    return {
      lock: orNull(this.lock, (l) => ({ req: l.req, by: l.by })),
      inquired: this.inquired,
      queue: this.queue.map((q) => ({ req: q.req, by: q.by, failed: q.failed })),
      fence: this.fence,
    }
  }

  /** Takes on the state `snapshot()` gave. */
  restore(s: Snapshot): void {
    const saved = s as unknown as {
      lock: RequestRef | null
      inquired: boolean
      queue: Array<RequestRef & { failed: boolean }>
      fence: number
    }
    this.lock = saved.lock === null ? undefined : { req: saved.lock.req, by: saved.lock.by }
    this.inquired = saved.inquired
    this.queue = saved.queue.map((q) => ({ req: q.req, by: q.by, failed: q.failed }))
    this.fence = saved.fence
  }

  /**
   * Forgets the vote and the queue, keeping the fence: on a new view, votes of the old one count
   * no more (their requesters ask again in the new view; see `views.ts` for holders).
   */
  reset(): void {
    this.lock = undefined
    this.inquired = false
    this.queue = []
  }

  request(r: RequestRef, ctx: MaekawaCtx): void {
    if (same(this.lock, r) || this.queue.some((q) => same(q, r))) return // a duplicate
    if (this.lock === undefined) {
      this.grant(r, ctx)
      return
    }
    const entry = { ...r, failed: false }
    this.queue.push(entry)
    this.queue.sort(order)
    if (order(r, this.lock) < 0 && this.queue[0] === entry) {
      // The earliest request here: ask the grantee to give way, and tell the ones it overtook.
      if (!this.inquired) {
        this.inquired = true
        this.out(this.lock.by, { type: 'inquire', ...this.lock }, ctx)
      }
      for (const q of this.queue) if (q !== entry && !q.failed) this.fail(q, ctx)
    } else this.fail(entry, ctx)
  }

  relinquish(r: RequestRef, ctx: MaekawaCtx): boolean {
    if (!same(this.lock, r)) return false
    this.queue.push({ ...r, failed: true }) // it gave way to an earlier one: it knows it failed
    this.queue.sort(order)
    this.next(ctx)
    return true
  }

  release(r: RequestRef, fence: number, ctx: MaekawaCtx): boolean {
    if (!same(this.lock, r)) return false
    this.fence = Math.max(this.fence, fence)
    this.next(ctx)
    return true
  }

  private next(ctx: MaekawaCtx): void {
    this.lock = undefined
    this.inquired = false
    const head = this.queue.shift()
    if (head !== undefined) this.grant({ req: head.req, by: head.by }, ctx)
  }

  private grant(r: RequestRef, ctx: MaekawaCtx): void {
    this.lock = r
    this.inquired = false
    this.out(r.by, { type: 'locked', ...r, fence: this.fence }, ctx)
  }

  private fail(q: RequestRef & { failed: boolean }, ctx: MaekawaCtx): void {
    q.failed = true
    this.out(q.by, { type: 'failed', req: q.req, by: q.by }, ctx)
  }
}
