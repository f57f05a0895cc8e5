import { type NodeId, sortNodeIds } from '@sd/transport'

/**
 * Grid quorums: the n members, in id order, fill a grid of ceil(sqrt(n)) columns row by row (the
 * last row may be short). Member i's quorum is its row plus its column, itself included: about
 * 2 sqrt(n) - 1 members. Any two quorums intersect: members in one row share it; otherwise take
 * i in row a, column c and j in row b, column d: cell (a, d) or cell (b, c) exists, since at
 * most one of the two rows is the short last one, and a full row has every column.
 */
export function gridQuorumRanks(n: number): number[][] {
  const width = Math.ceil(Math.sqrt(n))
  return Array.from({ length: n }, (_, i) => {
    const row = Math.floor(i / width)
    const col = i % width
    const out: number[] = []
    for (let j = 0; j < n; j++) {
      if (Math.floor(j / width) === row || j % width === col) out.push(j)
    }
    return out
  })
}

/** The quorum of `self` among `members` (any order), as ids ascending. */
export function gridQuorum(members: readonly NodeId[], self: NodeId): NodeId[] {
  const sorted = sortNodeIds(new Set(members))
  const rank = sorted.indexOf(self)
  if (rank < 0) return []
  return gridQuorumRanks(sorted.length)[rank]!.map((r) => sorted[r]!)
}
