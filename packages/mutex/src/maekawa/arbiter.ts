import { compareLamport } from '@sd/clocks'
import type { NodeId } from '@sd/transport'
import type { Unstamped } from './messages.js'

export interface RequestRef {
  req: number
  by: NodeId
}
type Out = (to: NodeId, msg: Unstamped) => void

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

  request(r: RequestRef): void {
    if (same(this.lock, r) || this.queue.some((q) => same(q, r))) return // a duplicate
    if (this.lock === undefined) {
      this.grant(r)
      return
    }
    const entry = { ...r, failed: false }
    this.queue.push(entry)
    this.queue.sort(order)
    if (order(r, this.lock) < 0 && this.queue[0] === entry) {
      // The earliest request here: ask the grantee to give way, and tell the ones it overtook.
      if (!this.inquired) {
        this.inquired = true
        this.out(this.lock.by, { type: 'inquire', ...this.lock })
      }
      for (const q of this.queue) if (q !== entry && !q.failed) this.fail(q)
    } else this.fail(entry)
  }

  relinquish(r: RequestRef): boolean {
    if (!same(this.lock, r)) return false
    this.queue.push({ ...r, failed: true }) // it gave way to an earlier one: it knows it failed
    this.queue.sort(order)
    this.next()
    return true
  }

  release(r: RequestRef, fence: number): boolean {
    if (!same(this.lock, r)) return false
    this.fence = Math.max(this.fence, fence)
    this.next()
    return true
  }

  private next(): void {
    this.lock = undefined
    this.inquired = false
    const head = this.queue.shift()
    if (head !== undefined) this.grant({ req: head.req, by: head.by })
  }

  private grant(r: RequestRef): void {
    this.lock = r
    this.inquired = false
    this.out(r.by, { type: 'locked', ...r, fence: this.fence })
  }

  private fail(q: RequestRef & { failed: boolean }): void {
    q.failed = true
    this.out(q.by, { type: 'failed', req: q.req, by: q.by })
  }
}
