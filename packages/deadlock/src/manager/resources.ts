/**
 * The resource side of a site: the lock tables of the resources it owns. It grants, queues, and
 * reports every wait as `waits-for` / `wait-ended` (waiter → holder: when the lock passes on, the
 * queue's waits move to the new holder). With a prevention rule, a conflict is decided by
 * timestamps instead of always queueing, and the rule is applied again whenever the holder changes.
 */
import type { NodeId } from '@sd/transport'
import { snapshotFields, snapshotList } from '../snapshot.js'
import type { SiteEnv } from './env.js'
import { LockTable, type Waiter } from './lock-table.js'
import type { ProcRef } from './messages.js'
import { olderThan } from './order.js'
import type { ManagerCtx } from './protocol.js'

/** Timestamp rules that make waits go one way only, so no cycle can form. */
export type Prevention = 'wait-die' | 'wound-wait'

export class ResourceSide {
  readonly table = new LockTable()
  private notices = 0
  /**
   * Per process, the highest request given up before it arrived: links reorder, so an abort's
   * release can overtake the request it cancels. Requests only grow, so that one and any older
   * one are dropped when they come, instead of queueing a request nobody waits for.
   */
  private readonly cancelled = new Map<string, number>()

  /** The resource side's state as canonical plain data (maps by key). */
  snapshot() {
    return {
      table: this.table.snapshot(),
      notices: this.notices,
      cancelled: [...this.cancelled.keys()]
        .sort()
        .map((process) => ({ process, req: this.cancelled.get(process)! })),
    }
  }

  constructor(
    private readonly env: SiteEnv,
    private readonly prevention: Prevention | undefined,
  ) {}

  /** Takes on the state `snapshot()` gave (for the protocol's `restore()`). */
  restore(snapshot: unknown): void {
    const s = snapshotFields(snapshot, 'resourceManager()', ['table', 'notices', 'cancelled'])
    this.table.restore(snapshotList(s.table, 'resourceManager()', 'the lock table'))
    this.notices = s.notices as number
    this.cancelled.clear()
    for (const { process, req } of s.cancelled as Array<{ process: string; req: number }>)
      this.cancelled.set(process, req)
  }

  request(from: NodeId, proc: ProcRef, resource: string, req: number, ctx: ManagerCtx): void {
    if (req <= (this.cancelled.get(String(proc.id)) ?? 0)) return
    const waiter: Waiter = { proc: { ...proc, home: from }, req }
    const holder = this.table.holder(resource)
    if (holder === undefined) {
      this.table.request(resource, waiter)
      this.env.send(from, { type: 'lock-grant', process: proc.id, resource, req }, ctx)
      return
    }
    if (this.prevention === 'wait-die' && !olderThan(waiter.proc, holder.proc)) {
      // Wait-die: a younger requester dies (and restarts later with its old timestamp).
      this.env.send(from, { type: 'lock-die', process: proc.id, resource, req }, ctx)
      return
    }
    this.table.request(resource, waiter)
    this.blocked(resource, waiter, holder, ctx)
    if (this.prevention === 'wound-wait' && olderThan(waiter.proc, holder.proc))
      this.wound(resource, holder, ctx)
  }

  /** The home lets go: of the lock it holds, or of a request still queued (an abort). */
  release(process: ProcRef['id'], resource: string, req: number, ctx: ManagerCtx): void {
    const holder = this.table.holder(resource)
    if (holder?.proc.id === process && holder.req === req) {
      const waiting = [...this.table.queue(resource)]
      const { next } = this.table.remove(resource, process, req)
      for (const w of waiting)
        ctx.emit({
          type: 'wait-ended',
          from: w.proc.id,
          to: process,
          resource,
          why: w === next ? 'granted' : 'holder-changed',
        })
      if (next === undefined) return
      this.env.send(
        next.proc.home,
        {
          type: 'lock-grant',
          process: next.proc.id,
          resource,
          req: next.req,
        },
        ctx,
      )
      for (const w of [...this.table.queue(resource)]) this.reconsider(resource, w, next, ctx)
      return
    }
    const queued = this.table.queue(resource).find((w) => w.proc.id === process && w.req === req)
    if (queued === undefined || holder === undefined) {
      // Nothing to let go of here (yet): remember it, in case the request is still on its way.
      const key = String(process)
      this.cancelled.set(key, Math.max(req, this.cancelled.get(key) ?? 0))
      return
    }
    this.table.remove(resource, process, req)
    ctx.emit({
      type: 'wait-ended',
      from: process,
      to: holder.proc.id,
      resource,
      why: 'aborted',
    })
  }

  /** A waiter behind a new holder: the rule again (wait-die may kill it now), then its new wait. */
  private reconsider(resource: string, w: Waiter, holder: Waiter, ctx: ManagerCtx): void {
    if (this.prevention === 'wait-die' && !olderThan(w.proc, holder.proc)) {
      // Its wait for the old holder has ended already (release); no new one starts.
      this.table.remove(resource, w.proc.id, w.req)
      this.env.send(
        w.proc.home,
        { type: 'lock-die', process: w.proc.id, resource, req: w.req },
        ctx,
      )
      return
    }
    this.blocked(resource, w, holder, ctx)
    if (this.prevention === 'wound-wait' && olderThan(w.proc, holder.proc))
      this.wound(resource, holder, ctx)
  }

  private blocked(resource: string, w: Waiter, holder: Waiter, ctx: ManagerCtx): void {
    ctx.emit({ type: 'waits-for', from: w.proc.id, to: holder.proc.id, resource })
    this.env.send(
      w.proc.home,
      {
        type: 'lock-blocked',
        process: w.proc.id,
        resource,
        req: w.req,
        holder: holder.proc,
        seq: ++this.notices,
      },
      ctx,
    )
  }

  private wound(resource: string, holder: Waiter, ctx: ManagerCtx): void {
    this.env.send(
      holder.proc.home,
      {
        type: 'wound',
        process: holder.proc.id,
        resource,
        req: holder.req,
      },
      ctx,
    )
  }
}
