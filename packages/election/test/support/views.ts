/** Who the nodes follow, read from emitted events. */
import type { EmittedEvent, NodeId } from '@sd/transport'

/** The leader every node of `ids` follows after the last of `events`, if they all agree. */
export function currentLeader(
  events: readonly EmittedEvent[],
  ids: readonly NodeId[],
): NodeId | undefined {
  const view = new Map<NodeId, NodeId | undefined>()
  for (const { node, event } of events) {
    const e = event as { type?: string; leader?: NodeId }
    if (e.type === 'leader') view.set(node, e.leader)
    else if (e.type === 'leader-lost') view.set(node, undefined)
  }
  const first = view.get(ids[0]!)
  return first !== undefined && ids.every((id) => view.get(id) === first) ? first : undefined
}
