import { compareNodeIds, InvalidArgumentError, type NodeId } from '@sd/transport'

/**
 * The ring as a node sees it: who comes after whom, and each member's position. Built over
 * `ctx.peers` without copying it: with 10,000 nodes a private sorted copy per node would be
 * 10^8 ids.
 */
export interface RingOrder {
  readonly size: number
  /** The member after `id` along the ring. */
  after(id: NodeId): NodeId
  /** Position of a member, 0..size-1, the same at every node. */
  rank(id: NodeId): number
  has(id: NodeId): boolean
  /** Every member but self, for heartbeats. */
  others(): Iterable<NodeId>
}

/** Index of the first id of `sorted` that is >= `id` (or > `id` when `strict`). */
function bound(sorted: readonly NodeId[], id: NodeId, strict: boolean): number {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    const c = compareNodeIds(sorted[mid]!, id)
    if (c < 0 || (strict && c === 0)) lo = mid + 1
    else hi = mid
  }
  return lo
}

export function sortedHas(sorted: readonly NodeId[], id: NodeId): boolean {
  const i = bound(sorted, id, false)
  return i < sorted.length && sorted[i] === id
}

/** The members in ascending id order: `peers` (ascending, without self) plus self. */
export function idOrder(self: NodeId, peers: readonly NodeId[]): RingOrder {
  const first = peers.length > 0 && compareNodeIds(peers[0]!, self) < 0 ? peers[0]! : self
  return {
    size: peers.length + 1,
    after(id) {
      const i = bound(peers, id, true)
      const next = i < peers.length ? peers[i]! : undefined
      const selfNext = compareNodeIds(self, id) > 0
      if (next !== undefined && selfNext) return compareNodeIds(next, self) < 0 ? next : self
      return next ?? (selfNext ? self : first)
    },
    rank: (id) => bound(peers, id, false) + (compareNodeIds(self, id) < 0 ? 1 : 0),
    has: (id) => id === self || sortedHas(peers, id),
    others: () => peers,
  }
}

/**
 * A ring in a given order (`ring[i]` passes to `ring[i + 1]`). The positions are computed once
 * per factory and shared by its nodes.
 */
export function explicitOrder(ring: readonly NodeId[]): (self: NodeId) => RingOrder {
  const ids = [...ring]
  const position = new Map<NodeId, number>()
  ids.forEach((id, i) => {
    if (position.has(id)) {
      throw new InvalidArgumentError(`ring: ${JSON.stringify(id)} appears twice`)
    }
    position.set(id, i)
  })
  return (self) => {
    if (!position.has(self)) {
      throw new InvalidArgumentError(`ring: node ${JSON.stringify(self)} is not in the ring`)
    }
    return {
      size: ids.length,
      after: (id) => ids[(position.get(id)! + 1) % ids.length]!,
      rank: (id) => position.get(id)!,
      has: (id) => position.has(id),
      *others() {
        for (const id of ids) if (id !== self) yield id
      },
    }
  }
}

/**
 * The term a leader of ring position `rank` takes: the smallest above `seen` that is `rank`
 * modulo `size` (Paxos ballot numbers). Every member owns its own terms, so two different
 * leaders never share one, whatever the failure detector got wrong; and the result depends only
 * on (seen, leader), so circulations that carried the same terms agree on the term too.
 */
export function ballot(seen: number, rank: number, size: number): number {
  const base = seen - (seen % size) + rank
  return base > seen ? base : base + size
}

/**
 * The ring of a member restored and not yet stepped: its size only (what its snapshot reads),
 * until its first step sets the ring from ctx.peers, which `restore()` is not given.
 */
export function sizeOnlyOrder(size: number): RingOrder {
  const unset = (): never => {
    throw new Error('ring order read before the restored member took a step')
  }
  return { size, after: unset, rank: unset, has: unset, others: unset }
}
