import { compareNodeIds } from '@sd/clocks'
import { InvalidArgumentError, type NodeId } from '@sd/transport'

/** The client's rank fills the low 16 bits of a token, the grant counter the bits above. */
export const RANK_SPAN = 65536

/**
 * The token of an entry: the largest grant counter of the quorum, then the client's rank among the
 * members. Two clients never get the same token, even when a restart in the intersection of their
 * quorums gave them the same counter: a resource that refuses tokens below the largest it saw
 * then lets one of two overlapping holders act, never both interleaved.
 */
export const tokenOf = (counter: number, rank: number): number => counter * RANK_SPAN + rank

/** The grant counter a token was made from: coordinators move their counter past it. */
export const counterOf = (token: number): number => Math.floor(token / RANK_SPAN)

/** The node's place among all members in id order (the same on every node). */
export function clientRank(self: NodeId, peers: readonly NodeId[]): number {
  const members = [...new Set([self, ...peers])].sort(compareNodeIds)
  if (members.length > RANK_SPAN) {
    throw new InvalidArgumentError(
      `quorumMutex: tokens hold the client's rank in 16 bits: at most ${RANK_SPAN} members, got ${members.length}`,
    )
  }
  return members.indexOf(self)
}
