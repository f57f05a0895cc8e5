/**
 * Incarnations of one id. A member removed (or gone with its state file) comes back by joining
 * again with a fresh state, under the same id: a new incarnation, told apart by its generation
 * (when its state first started). What was sent to the old incarnation may still reach the new
 * process (a late datagram; a transport that resends to a restarted peer what the old one never
 * acknowledged): a view that names the id, from before the removal, would make the new process a
 * member of a group that no longer has it, acting on the old one's behalf. So a joiner takes as
 * its first view only the one that admitted its own generation.
 */
import type { NodeId } from '@sd/transport'
import type { ViewRecord } from './view.js'

/**
 * Whether `record` may be the first view of a joiner `self` of `generation`: it admitted that
 * generation (a joiner without one, from before generations, takes any view naming it).
 */
export function admitsThisIncarnation(
  record: ViewRecord,
  self: NodeId,
  generation: number | undefined,
): boolean {
  if (!record.members.includes(self)) return false
  if (generation === undefined) return true
  return record.joined.includes(self) && record.generation === generation
}

/** The last of `views` that admitted `id` (its join), if this node holds it. */
export function admissionOf(views: readonly ViewRecord[], id: NodeId): ViewRecord | undefined {
  for (let i = views.length - 1; i >= 0; i--) if (views[i]!.joined.includes(id)) return views[i]
  return undefined
}

/**
 * A JOIN from `id`, which is a member of the current view: the answer. Its admission view, when
 * the JOIN is of the generation it admitted (it missed the announcement), or comes without one;
 * `remove` when the JOIN is of a later generation (the member lost its state and came back: the
 * old incarnation must leave before the new one joins); nothing for an earlier one (a stale JOIN)
 * or an admission this node does not hold (a member that joined after it: another seed answers).
 */
export function answerMemberJoin(
  views: readonly ViewRecord[],
  id: NodeId,
  generation: number | undefined,
): { send: ViewRecord } | 'remove' | undefined {
  const admission = admissionOf(views, id)
  if (generation === undefined) return { send: views.at(-1)! }
  if (admission === undefined) return undefined
  if (admission.generation === undefined || admission.generation < generation) return 'remove'
  return admission.generation === generation ? { send: admission } : undefined
}
