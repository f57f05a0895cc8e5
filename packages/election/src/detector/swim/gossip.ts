/**
 * Dissemination by piggyback (SWIM's infection style): each update rides on the next messages
 * the node sends anyway, the least-sent first, until it has gone out `limit` times (lambda x
 * log n: enough for every member to hear it with high probability). A newer update about a
 * member replaces the older one and starts over.
 */
import { compareNodeIds, type NodeId, sortNodeIds } from '@sd/transport'
import type { MemberUpdate } from './members.js'

export class Gossip {
  private readonly queue = new Map<NodeId, { update: MemberUpdate; sent: number }>()

  add(update: MemberUpdate): void {
    this.queue.set(update.node, { update, sent: 0 })
  }

  /**
   * Up to `max` updates for the next message, `first` ahead of the queue (not counted: it is
   * said to one member in particular), then news about `own` (the node's own refutation) if
   * queued; each taken update counts one send, and leaves at `limit`.
   */
  take(max: number, limit: number, first?: MemberUpdate, own?: NodeId): MemberUpdate[] {
    const out: MemberUpdate[] = first ? [first] : []
    const mine = (e: { update: MemberUpdate }) => (e.update.node === own ? 0 : 1)
    const picks = [...this.queue.values()]
      .filter((e) => e.update.node !== first?.node)
      .sort(
        (a, b) =>
          mine(a) - mine(b) || a.sent - b.sent || compareNodeIds(a.update.node, b.update.node),
      )
      .slice(0, max - out.length)
    for (const e of picks) {
      out.push(e.update)
      e.sent += 1
      if (e.sent >= limit) this.queue.delete(e.update.node)
    }
    return out
  }

  get size(): number {
    return this.queue.size
  }

  snapshot(): { update: MemberUpdate; sent: number }[] {
    return sortNodeIds(this.queue.keys()).map((node) => {
      const e = this.queue.get(node)!
      return { update: { ...e.update }, sent: e.sent }
    })
  }
}
