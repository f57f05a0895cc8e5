import {
  arrayOf,
  intIn,
  isNodeId,
  messageParser,
  type NodeId,
  oneOf,
  optional,
  shape,
} from '@sd/transport'
import type { ViewRecord } from './view.js'

/** The longest address a JOIN may carry: a host name or an IPv6 literal with a port fits. */
export const MAX_ADDRESS_LENGTH = 256
export const isAddress = (value: unknown): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= MAX_ADDRESS_LENGTH

/** A change of the group, one member at a time (Raft's single-server changes). */
export interface Change {
  op: 'join' | 'leave' | 'remove'
  id: NodeId
  /** A joiner's address, as its JOIN gave it (see `MemberAddress`). */
  address?: string
  /** A joiner's generation, as its JOIN gave it (see `ViewRecord.generation`). */
  generation?: number
}

/** A proposal an acceptor took: view `record` in the ballot (`term`, `by`). */
export interface Accepted {
  term: number
  by: NodeId
  record: ViewRecord
}

/**
 * What the nodes say. A ballot is the leader's election term with its id (`term`, sender): each
 * view number is decided like one Paxos instance among the members of the view before it, so
 * two leaders at once (a stale one and a new one) still cannot commit two different views of
 * one number.
 */
export type MembershipMessage =
  /**
   * A process asks a member (any) to let it join; `address`: where the others can reach it;
   * `generation`: which incarnation of its id asks (its state file's, see `ViewRecord.generation`).
   */
  | { type: 'join'; address?: string; generation?: number }
  /** A change asked of the leader (forwarded by the member that heard of it). */
  | { type: 'change'; op: Change['op']; id: NodeId; address?: string; generation?: number }
  /** Leader of `term` to the members of its view: promise to take no lower ballot (Paxos phase 1). */
  | { type: 'prepare'; term: number }
  /** The promise, with the acceptor's view and what it accepted for the next one, if anything. */
  | { type: 'promise'; term: number; view: number; accepted?: Accepted }
  /** Leader to the members of view `record.view - 1`: accept `record` (phase 2). */
  | { type: 'accept'; term: number; record: ViewRecord }
  /** The acknowledgement of `accept`. */
  | { type: 'accepted'; term: number; view: number }
  /** A committed view (an announcement, or the answer to `fetch`). */
  | { type: 'install'; record: ViewRecord }
  /** A node that missed views asks for the one after `after`. */
  | { type: 'fetch'; after: number }

const isTerm = intIn(1, Number.MAX_SAFE_INTEGER)
const isView = intIn(1, Number.MAX_SAFE_INTEGER)
const isIds = arrayOf(isNodeId, { max: 10_000 })
const isGeneration = intIn(0, Number.MAX_SAFE_INTEGER)
const isAddresses = arrayOf(shape({ id: isNodeId, address: isAddress }), { max: 10_000 })
export const isViewRecord = shape({
  view: isView,
  members: isIds,
  joined: isIds,
  left: isIds,
  addresses: optional(isAddresses),
  generation: optional(isGeneration),
})
const isAccepted = shape({ term: isTerm, by: isNodeId, record: isViewRecord })

/** The message if it has the shape of one, else a reason to ignore it. */
export const parseMessage = messageParser<MembershipMessage>({
  join: { address: optional(isAddress), generation: optional(isGeneration) },
  change: {
    op: oneOf('join', 'leave', 'remove'),
    id: isNodeId,
    address: optional(isAddress),
    generation: optional(isGeneration),
  },
  prepare: { term: isTerm },
  promise: {
    term: isTerm,
    view: intIn(0, Number.MAX_SAFE_INTEGER),
    accepted: optional(isAccepted),
  },
  accept: { term: isTerm, record: isViewRecord },
  accepted: { term: isTerm, view: isView },
  install: { record: isViewRecord },
  fetch: { after: intIn(0, Number.MAX_SAFE_INTEGER) },
})
