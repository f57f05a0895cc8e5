/**
 * The local view: the member list as an application sees it, numbered. Changes made while one
 * handler runs (a welcome admits many members at once) are collected and published as one
 * `view` event when the handler ends, after a `member-joined` / `member-left` for each.
 */
import { type NodeId, sortNodeIds } from '@sd/transport'

export class ViewLog {
  private number = 0
  private readonly joined = new Set<NodeId>()
  private readonly left = new Set<NodeId>()

  get view(): number {
    return this.number
  }

  join(node: NodeId): void {
    if (!this.left.delete(node)) this.joined.add(node)
  }

  leave(node: NodeId): void {
    if (!this.joined.delete(node)) this.left.add(node)
  }

  /** The change to publish, if any, numbered; the log starts over. */
  take(): { view: number; joined: NodeId[]; left: NodeId[] } | undefined {
    if (this.joined.size === 0 && this.left.size === 0) return undefined
    this.number += 1
    const out = {
      view: this.number,
      joined: sortNodeIds(this.joined),
      left: sortNodeIds(this.left),
    }
    this.joined.clear()
    this.left.clear()
    return out
  }

  snapshot() {
    // Changes are published before a handler returns: between steps only the number is state.
    return { view: this.number }
  }
}
