import { InvalidArgumentError, isNodeId, type NodeId, sortNodeIds } from '@sd/transport'
import { isAddress, MAX_ADDRESS_LENGTH } from './messages.js'
import { majorityOf } from './view.js'

export interface AgreedMembershipOptions {
  /**
   * The founders: view 1 of the group. A node listed here starts in view 1; any other node is a
   * joiner and asks to join.
   */
  founders: readonly NodeId[]
  /** Whom a joiner contacts (any member will do; it tries them in turn). Default: the founders. */
  seeds?: readonly NodeId[]
  /**
   * How often a node repeats what is not done yet, ms: a joiner its JOIN, a leaver its LEAVE, a
   * member a removal it asked for, the leader an unanswered phase and its current view (so a
   * member that missed an announcement catches up). Default 250.
   */
  retryMs?: number
  /**
   * Where the others can reach this node (its transport's address as they see it, e.g.
   * `'10.0.0.7:4000'`, at most 256 characters). A joiner sends it with its JOIN, and the views
   * carry it (`addresses`), so members that never heard from it can add it to their address
   * book. Default: none.
   */
  address?: string
}

export interface AgreedMembershipSettings {
  founders: NodeId[]
  seeds: NodeId[]
  retryMs: number
  address?: string
  /**
   * How many acknowledgements of view v's members commit view v + 1: a majority. Not an option:
   * the tests replace it to show that a smaller quorum breaks the guarantees.
   */
  quorum: (members: number) => number
}

export const DEFAULT_RETRY_MS = 250

export function resolveOptions(options: AgreedMembershipOptions): AgreedMembershipSettings {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidArgumentError('agreedMembership: options must be an object with founders')
  }
  const { founders, seeds = founders, retryMs = DEFAULT_RETRY_MS, address } = options
  if (!Array.isArray(founders) || founders.length === 0 || !founders.every(isNodeId)) {
    throw new InvalidArgumentError(
      'agreedMembership: founders must be a non-empty list of node ids',
    )
  }
  if (new Set(founders).size !== founders.length) {
    throw new InvalidArgumentError('agreedMembership: founders must not repeat an id')
  }
  if (!Array.isArray(seeds) || seeds.length === 0 || !seeds.every(isNodeId)) {
    throw new InvalidArgumentError('agreedMembership: seeds must be a non-empty list of node ids')
  }
  if (!(Number.isFinite(retryMs) && retryMs > 0)) {
    throw new InvalidArgumentError(`agreedMembership: retryMs must be > 0, got ${retryMs}`)
  }
  if (address !== undefined && !isAddress(address)) {
    throw new InvalidArgumentError(
      `agreedMembership: address must be a string of 1 to ${MAX_ADDRESS_LENGTH} characters`,
    )
  }
  return {
    founders: sortNodeIds(founders),
    seeds: [...seeds],
    retryMs,
    quorum: majorityOf,
    ...(address === undefined ? {} : { address }),
  }
}
