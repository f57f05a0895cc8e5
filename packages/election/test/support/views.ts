/** Who the nodes follow, read from emitted events. */
import { type EmittedEvent, isNodeId, type NodeId } from '@sd/transport'
import { eventFields } from '../../src/event-fields.js'

/** The leader every node of `ids` follows after the last of `events`, if they all agree. */
export function currentLeader(
  events: readonly EmittedEvent[],
  ids: readonly NodeId[],
): NodeId | undefined {
  const view = new Map<NodeId, NodeId | undefined>()
  for (const { node, event } of events) {
    const e = eventFields(event)
    if (e?.type === 'leader' && isNodeId(e.leader)) view.set(node, e.leader)
    else if (e?.type === 'leader-lost') view.set(node, undefined)
  }
  const first = view.get(ids[0]!)
  return first !== undefined && ids.every((id) => view.get(id) === first) ? first : undefined
}
