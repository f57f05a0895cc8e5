import { isNodeId, type JsonValue, type NodeId, readStored } from '@sd/transport'
import { parseViewRequest, type ViewInstall } from '../lamport/view.js'
import { idSet, type Snapshot, snapshotFields } from '../snapshot.js'
import type { CentralizedCtx } from './protocol.js'
import { close, holdersOf, type Resource, victimsOf } from './resource.js'

/** Stable storage key of the installed view (a restarted node resumes in it). */
const VIEW_KEY = 'view'

type StoredView = { view: number; peers: NodeId[]; self: boolean }

const VIEW_SHAPE = {
  expected: 'an object with view (an integer >= 1), peers (node ids) and self (a boolean)',
  is: (v: JsonValue): v is StoredView => {
    const s = v as Partial<StoredView> | null
    return (
      typeof s === 'object' &&
      s !== null &&
      Number.isSafeInteger(s.view) &&
      (s.view as number) >= 1 &&
      Array.isArray(s.peers) &&
      s.peers.every(isNodeId) &&
      typeof s.self === 'boolean'
    )
  },
}

export { parseViewRequest }

/**
 * The group a centralized node follows (a `ViewRequest` installs one; 'views'). View 0 is the
 * launch group (`ctx.self` and `ctx.peers`); messages of view 0 carry no view number, so a run
 * without view requests sends exactly what it always sent. Why each rule holds: see the
 * "Views" part of `centralized`'s comment (protocol.ts).
 */
export class MemberView {
  view = 0
  /** The other members of `view` (view 0: `ctx.peers`, read when needed). */
  private peers: NodeId[] = []
  /** Whether this node belongs to the view: a node left out acquires nothing. */
  inView = true

  /** The stored view, if any (a restart resumes in it). */
  restore(ctx: CentralizedCtx): void {
    const stored = readStored(ctx.storage, VIEW_KEY, VIEW_SHAPE)
    if (stored !== undefined) this.set(stored)
  }

  install(next: ViewInstall, ctx: CentralizedCtx): void {
    ctx.storage.set(VIEW_KEY, { view: next.view, peers: next.peers, self: next.self })
    this.set(next)
  }

  /** The other members of the current view. */
  others(ctx: CentralizedCtx): readonly NodeId[] {
    return this.view === 0 ? ctx.peers : this.peers
  }

  /** Whether `id` belongs to the current view (this node only while it is in it). */
  has(id: NodeId, ctx: CentralizedCtx): boolean {
    return id === ctx.self ? this.inView : this.others(ctx).includes(id)
  }

  /** The view number a RECOVER or SYNC carries: none in view 0. */
  stamp(): { view?: number } {
    return this.view > 0 ? { view: this.view } : {}
  }

  snapshot(): Snapshot {
    return { view: this.view, peers: idSet(this.peers), inView: this.inView }
  }

  /** Takes on the state `snapshot()` gave (for the protocol's `restore()`). */
  load(snapshot: Snapshot): void {
    const s = snapshotFields(snapshot, 'centralized()', ['view', 'peers', 'inView'])
    this.set({ view: s.view as number, peers: s.peers as NodeId[], self: s.inView as boolean })
  }

  private set(next: ViewInstall): void {
    this.view = next.view
    this.peers = [...next.peers]
    this.inView = next.self
  }
}

/** A node left out of the coordinator's view (views only): what it asks is not entered. */
export function isStranger(
  group: MemberView,
  from: NodeId,
  what: string,
  ctx: CentralizedCtx,
): boolean {
  if (group.view === 0 || group.has(from, ctx)) return false
  ctx.emit({ type: 'ignored', from, reason: `${what} from a node not in view ${group.view}` })
  return true
}

/**
 * A view installed at the coordinator: `name`'s waiting requests of nodes left out are dropped
 * (granting a crashed node would hold the resource), and, without leases, their entries are
 * released (`left-out`; a steal's victims too), under the precondition that only crashed or departed nodes are left
 * out: nobody else can end them. With leases an entry is kept until it is released or its lease
 * runs out, which assumes nothing of the node.
 */
export function leaveOut(
  name: string,
  r: Resource,
  group: MemberView,
  leased: boolean,
  ctx: CentralizedCtx,
): void {
  for (let i = r.queue.length - 1; i >= 0; i--) {
    if (!group.has(r.queue[i]!.node, ctx)) r.queue.splice(i, 1)
  }
  if (leased) return
  for (const h of holdersOf(r).filter((v) => !group.has(v.node, ctx))) {
    close(r, h.token, h)
    r.holders.delete(h.node)
    ctx.emit({ type: 'left-out', resource: name, node: h.node, token: h.token })
  }
  // A steal's victim left out will never acknowledge: without a lease, nothing else ends it.
  for (const v of victimsOf(r).filter((w) => !group.has(w.node, ctx))) {
    close(r, v.token, v)
    r.victims.delete(v.token)
    ctx.emit({ type: 'left-out', resource: name, node: v.node, token: v.token })
  }
}
