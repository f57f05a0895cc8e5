import type { ProcessId } from '../contract.js'
import type { ProcRef, SiteWait } from './messages.js'

/** A request for a lock: who (with home and timestamp) and which of its requests. */
export interface Waiter {
  proc: ProcRef
  /** The request's number at its home, to tell a new request from an old one. */
  req: number
}

/** One resource's lock: its holder and the FIFO queue behind it. */
interface Lock {
  holder: Waiter | undefined
  queue: Waiter[]
}

/**
 * The exclusive locks of the resources one site owns. Pure bookkeeping: the site protocol turns
 * its answers into messages and events.
 */
export class LockTable {
  private readonly locks = new Map<string, Lock>()

  /**
   * The locks as canonical plain data, by resource name; a lock free with nobody queued is the
   * same state as one never used, and is left out. Queues keep their order (FIFO is state).
   */
  snapshot() {
    const copy = (w: Waiter) => ({ proc: { ...w.proc }, req: w.req })
    return [...this.locks.keys()]
      .sort()
      .map((resource) => ({ resource, lock: this.locks.get(resource)! }))
      .filter(({ lock }) => lock.holder !== undefined || lock.queue.length > 0)
      .map(({ resource, lock }) => ({
        resource,
        holder: lock.holder === undefined ? null : copy(lock.holder),
        queue: lock.queue.map(copy),
      }))
  }

  /** Takes on the locks `snapshot()` gave (for the protocol's `restore()`). */
  restore(
    locks: ReadonlyArray<{ resource: string; holder: Waiter | null; queue: Waiter[] }>,
  ): void {
    const copy = (w: Waiter): Waiter => ({ proc: { ...w.proc }, req: w.req })
    this.locks.clear()
    for (const { resource, holder, queue } of locks)
      this.locks.set(resource, {
        holder: holder === null ? undefined : copy(holder),
        queue: queue.map(copy),
      })
  }

  private lock(resource: string): Lock {
    let lock = this.locks.get(resource)
    if (lock === undefined) {
      lock = { holder: undefined, queue: [] }
      this.locks.set(resource, lock)
    }
    return lock
  }

  holder(resource: string): Waiter | undefined {
    return this.locks.get(resource)?.holder
  }

  queue(resource: string): readonly Waiter[] {
    return this.locks.get(resource)?.queue ?? []
  }

  /** Grants at once when free (true), or queues the request (false). */
  request(resource: string, waiter: Waiter): boolean {
    const lock = this.lock(resource)
    if (lock.holder === undefined) {
      lock.holder = waiter
      return true
    }
    lock.queue.push(waiter)
    return false
  }

  /**
   * Removes request `req` of `process`: as holder (then the next in line holds the lock, returned)
   * or from the queue. A process may briefly have two entries (an aborted request whose release is
   * still on its way, and its new one): only the one named goes.
   */
  remove(
    resource: string,
    process: ProcessId,
    req: number,
  ): { wasHolder: boolean; next: Waiter | undefined } {
    const lock = this.locks.get(resource)
    if (lock === undefined) return { wasHolder: false, next: undefined }
    if (lock.holder?.proc.id === process && lock.holder.req === req) {
      lock.holder = lock.queue.shift()
      return { wasHolder: true, next: lock.holder }
    }
    lock.queue = lock.queue.filter((w) => !(w.proc.id === process && w.req === req))
    return { wasHolder: false, next: undefined }
  }

  /** Every wait of this site: waiter, holder, resource, and an id per wait instance. */
  waits(): SiteWait[] {
    const out: SiteWait[] = []
    // By resource name, as the snapshot: the order they were first used in is not state.
    for (const resource of [...this.locks.keys()].sort()) {
      const lock = this.locks.get(resource)!
      if (lock.holder === undefined) continue
      for (const w of lock.queue)
        out.push({
          from: w.proc,
          to: lock.holder.proc,
          resource,
          id: waitId(resource, w, lock.holder),
        })
    }
    return out
  }
}

/** A wait instance: a new holder or a new request is a new wait, with a new id. */
export function waitId(resource: string, waiter: Waiter, holder: Waiter): string {
  return `${resource}|${String(waiter.proc.id)}#${waiter.req}|${String(holder.proc.id)}#${holder.req}`
}
