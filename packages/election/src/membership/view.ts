/**
 * What both flavours of membership emit when a node installs a view: the agreed view of this
 * folder (changed through the majority leader) and an eventually consistent one (SWIM's) alike.
 * A consumer (a mutex that follows views: `ViewRequest { type: 'view', view, members }` of
 * `@sd/mutex`) needs only this shape.
 */
import type { NodeId } from '@sd/transport'

/**
 * The node installed view number `view`: from now on the group is `members` (ids ascending).
 * `joined` and `left` are what changed from view `view - 1` (for the first view of a group, its
 * founders joined). Views are numbered upwards from 1.
 */
export interface ViewEvent {
  type: 'view'
  view: number
  members: NodeId[]
  joined: NodeId[]
  left: NodeId[]
}

/** One committed view, as kept in stable storage and sent on the wire. */
export interface ViewRecord {
  view: number
  members: NodeId[]
  joined: NodeId[]
  left: NodeId[]
}

/** The event a node emits when it installs `record`. */
export function viewEvent(record: ViewRecord): ViewEvent {
  return {
    type: 'view',
    view: record.view,
    members: [...record.members],
    joined: [...record.joined],
    left: [...record.left],
  }
}

/** A majority of `n` members. */
export const majorityOf = (n: number): number => Math.floor(n / 2) + 1
