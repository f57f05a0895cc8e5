/**
 * What both flavours of membership emit when a node installs a view: the agreed view of this
 * folder (changed through the majority leader) and an eventually consistent one (SWIM's) alike.
 * A consumer (a mutex that follows views: `ViewRequest { type: 'view', view, members }` of
 * `@sd/mutex`) needs only this shape.
 */
import type { NodeId } from '@sd/transport'

/**
 * Where a member that joined said it can be reached (the transport's address as the others see
 * it, e.g. `'10.0.0.7:4000'`): what lets members that never heard from a joiner reach it.
 */
export interface MemberAddress {
  id: NodeId
  address: string
}

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
  /** The members that joined with an `address`, and it (ids ascending); absent when none did. */
  addresses?: MemberAddress[]
}

/** One committed view, as kept in stable storage and sent on the wire. */
export interface ViewRecord {
  view: number
  members: NodeId[]
  joined: NodeId[]
  left: NodeId[]
  /** Of the members, those that joined with an address (absent when none did). */
  addresses?: MemberAddress[]
  /**
   * The generation the member in `joined` asked with (absent for other changes, and for a JOIN
   * without one). A joiner takes as its first view only the one that admitted its own generation:
   * a view meant for an earlier incarnation of its id (a message still on its way, or resent by a
   * transport to the new process) would make it a member it is not.
   */
  generation?: number
}

/** The event a node emits when it installs `record`. */
export function viewEvent(record: ViewRecord): ViewEvent {
  return {
    type: 'view',
    view: record.view,
    members: [...record.members],
    joined: [...record.joined],
    left: [...record.left],
    ...(record.addresses === undefined
      ? {}
      : { addresses: record.addresses.map((a) => ({ ...a })) }),
  }
}

/** A majority of `n` members. */
export const majorityOf = (n: number): number => Math.floor(n / 2) + 1
