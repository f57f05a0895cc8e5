import type { NodeId } from '@sd/transport'
import { idMap, idSet, type Snapshot } from '../snapshot.js'

/**
 * What a Maekawa node knows of the views (see `ViewRequest`): the view it is in, and what the
 * other members said when they installed theirs (a SYNC each: their view and the entry they hold).
 *
 * Why SYNC. Quorums of one view intersect; quorums of two views need not, so votes of view v
 * say nothing about an entry made in view u < v. The rule that keeps one holder across views:
 * a member votes in view v only once (1) every other member of v has sent a SYNC of v or later,
 * and (2) no member holds an entry it declared in a SYNC and has not released since (its own
 * entry made in an older view included). Requests arriving before that wait (`deferred`).
 *
 * Proof sketch. A node enters in view u only with votes of view u, while it is in u; it installs
 * v > u before it sends the SYNC of v, and leaves u's votes for good on installing v. Say N
 * enters in u at t1 and holds until t2, and R enters in v > u at t3 in (t1, t2). R's votes were
 * given in v after (1): if N is not a member of v it crashed before v was issued (the
 * precondition), and its holding ended then; so N is a member and sent a SYNC of v or later
 * before the vote, after t1 (it entered in u before installing v), while it held: the SYNC
 * declares the entry, whose RELEASE (sent at t2 > t3) had not come: (2) forbade the vote.
 * Two entries of one view are Maekawa's own case. The same argument shows no entry is made in
 * u after a vote of v was given, so every entry of v comes after every entry of u: fencing
 * tokens of view v start above v * VIEW_UNIT and keep the order.
 */
export class ViewBook {
  /** The view this node is in; 0: the group it was started with. */
  view = 0
  /** The members of `view`, ascending. */
  members: NodeId[]
  /** Not in a view (left out of the last one, or restarted after a view): it neither asks nor votes. */
  detached = false
  /** Per member: the latest view it said it installed, and the entry it held then (0: none). */
  private readonly synced = new Map<NodeId, { view: number; hold: number }>()
  /** Per member: the highest fencing token it released (told by its RELEASE). */
  private readonly released = new Map<NodeId, number>()

  constructor(members: NodeId[]) {
    this.members = members
  }

  onSync(from: NodeId, view: number, hold: number): void {
    const known = this.synced.get(from)
    if (known === undefined || view > known.view) this.synced.set(from, { view, hold })
  }

  onRelease(by: NodeId, token: number): void {
    this.released.set(by, Math.max(this.released.get(by) ?? 0, token))
  }

  /** May this node's vote be given in its view (other than for its own entry, `selfHolds`)? */
  open(self: NodeId, selfHoldsFromOlderView: boolean): boolean {
    if (this.detached || selfHoldsFromOlderView) return false
    if (this.view === 0) return true
    return this.members.every((m) => {
      if (m === self) return true
      const s = this.synced.get(m)
      return s !== undefined && s.view >= this.view && s.hold <= (this.released.get(m) ?? 0)
    })
  }

  /** Takes on the state `snapshot()` gave. */
  restore(snapshot: Snapshot): void {
    const s = snapshot as {
      view: number
      members: NodeId[]
      detached: boolean
      synced: Array<[NodeId, { view: number; hold: number }]>
      released: Array<[NodeId, number]>
    }
    this.view = s.view
    this.members = [...s.members]
    this.detached = s.detached
    this.synced.clear()
    for (const [id, v] of s.synced) this.synced.set(id, { view: v.view, hold: v.hold })
    this.released.clear()
    for (const [id, t] of s.released) this.released.set(id, t)
  }

  snapshot(): Snapshot {
    return {
      view: this.view,
      members: idSet(this.members),
      detached: this.detached,
      synced: idMap(this.synced, (s) => ({ view: s.view, hold: s.hold })),
      released: idMap(this.released, (t) => t),
    }
  }
}
