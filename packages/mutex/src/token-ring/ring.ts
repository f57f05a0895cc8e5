import { compareNodeIds, type NodeId } from '@sd/transport'

/** The next member after `self` in ascending id order, wrapping around; undefined when alone. */
export function successorOf(members: readonly NodeId[], self: NodeId): NodeId | undefined {
  const others = members.filter((m) => m !== self)
  if (others.length === 0) return undefined
  return others.find((m) => compareNodeIds(m, self) > 0) ?? others[0]
}

export function sameMembers(a: readonly NodeId[], b: readonly NodeId[]): boolean {
  return a.length === b.length && a.every((m, i) => m === b[i])
}

/** Elections are ordered by (generation, initiator id); the highest wins. */
export function compareElection(
  a: { generation: number; initiator: NodeId },
  b: { generation: number; initiator: NodeId },
): number {
  return a.generation - b.generation || compareNodeIds(a.initiator, b.initiator)
}
