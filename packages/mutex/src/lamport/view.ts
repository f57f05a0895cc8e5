import { compareNodeIds, isNodeId, isNonNegInt, type NodeId } from '@sd/transport'
import { idSet, plainCopy, type Snapshot } from '../snapshot.js'

/**
 * The group view both timestamp algorithms follow (a `ViewRequest` of the contract installs one).
 * View 0 is the launch group (`ctx.peers`); its messages carry no view number, so a run without
 * view requests sends exactly what it always sent. The rules (why: see `ricartAgrawala`'s comment):
 * - a message of this node's view is handled, if its sender is a member;
 * - a message of a newer view is kept until this node installs that view (at most MAX_BUFFERED);
 * - a message of an older view is dropped: its sender re-sends what still matters once it installs;
 * - after installing a view, a node stamps no new request until every member told it (a `view`
 *   message, or anything stamped in that view) that it installed the view too: its clock is then
 *   above every timestamp entered before, so a joiner's first request is no earlier than them.
 */
export const MAX_BUFFERED = 1024

/** A view request's content, checked. */
export interface ViewInstall {
  view: number
  /** The other members (this node left out); `self` says whether this node belongs. */
  peers: NodeId[]
  self: boolean
}

/** Checks a local view request; `undefined` when `req` is not one (an acquire, a release). */
export function parseViewRequest(req: unknown, self: NodeId): ViewInstall | string | undefined {
  if (typeof req !== 'object' || req === null) return undefined
  const r: { type?: unknown; view?: unknown; members?: unknown } = req
  if (r.type !== 'view') return undefined
  if (!isNonNegInt(r.view)) return 'view is not an integer >= 0'
  if (!Array.isArray(r.members) || !r.members.every(isNodeId)) {
    return 'members is not an array of node ids'
  }
  const members = [...new Set(r.members as NodeId[])].sort(compareNodeIds)
  return {
    view: r.view,
    peers: members.filter((m) => m !== self),
    self: members.includes(self),
  }
}

/** What a node does with a peer's message, given the view it was sent in. */
export type Admission = 'now' | 'later' | 'stale' | 'stranger'

/** One node's view: number, members, who it still waits to hear from, messages kept for later. */
export class GroupView<M> {
  view = 0
  /** The other members of the view. */
  peers = new Set<NodeId>()
  /** Whether this node belongs to the view (a node left out never enters again in it). */
  inView = true
  /** Members not yet heard from in this view (no new request is stamped before). */
  readonly unheard = new Set<NodeId>()
  /** Messages of views this node has not installed yet, in arrival order. */
  private buffered: Array<{ from: NodeId; view: number; msg: M }> = []

  /** The launch group: view 0, heard from by definition (its members started together). */
  start(peers: readonly NodeId[]): void {
    this.view = 0
    this.peers = new Set(peers)
    this.inView = true
    this.unheard.clear()
    this.buffered = []
  }

  /** Whether this node may stamp a new request (it heard from every member of its view). */
  get ready(): boolean {
    return this.inView && this.unheard.size === 0
  }

  /** Where a message of `view` from `from` goes. */
  admit(from: NodeId, view: number): Admission {
    if (view > this.view) return 'later'
    if (!this.peers.has(from)) return 'stranger'
    return view < this.view ? 'stale' : 'now'
  }

  /** Keeps a message of a later view; false when the buffer is full (the message is dropped). */
  keep(from: NodeId, view: number, msg: M): boolean {
    if (this.buffered.length >= MAX_BUFFERED) return false
    this.buffered.push({ from, view, msg })
    return true
  }

  /** Installs a view; returns the messages kept for it (older kept ones are dropped). */
  install(next: ViewInstall): Array<{ from: NodeId; msg: M }> {
    this.view = next.view
    this.peers = new Set(next.peers)
    this.inView = next.self
    this.unheard.clear()
    for (const p of next.peers) this.unheard.add(p)
    const due = this.buffered.filter((b) => b.view === next.view)
    this.buffered = this.buffered.filter((b) => b.view > next.view)
    return due.map(({ from, msg }) => ({ from, msg }))
  }

  /** A member spoke in this view; true when that was the last one this node waited for. */
  heard(from: NodeId): boolean {
    return this.unheard.delete(from) && this.unheard.size === 0
  }

  /** The view number a message carries: none in view 0 (what every message looked like before). */
  stamp(): { view?: number } {
    return this.view > 0 ? { view: this.view } : {}
  }

  snapshot(): Snapshot {
    return {
      view: this.view,
      peers: idSet(this.peers),
      inView: this.inView,
      unheard: idSet(this.unheard),
      // Handled in arrival order once the view is installed.
      buffered: this.buffered.map((b) => ({
        from: b.from,
        view: b.view,
        msg: plainCopy(b.msg as object),
      })),
    }
  }

  restore(s: Snapshot): void {
    const v = s as {
      view: number
      peers: NodeId[]
      inView: boolean
      unheard: NodeId[]
      buffered: Array<{ from: NodeId; view: number; msg: M }>
    }
    this.view = v.view
    this.peers = new Set(v.peers)
    this.inView = v.inView
    this.unheard.clear()
    for (const p of v.unheard) this.unheard.add(p)
    this.buffered = v.buffered.map((b) => ({ ...b, msg: structuredClone(b.msg) }))
  }
}
