import type { NodeId } from '@sd/transport'
import type { IgnoredEvent } from './local-request.js'
import type { GroupView } from './view.js'

/**
 * A peer's message as both timestamp algorithms admit it: from a member, and well formed (checked
 * by the algorithm's `parse`). Returns it typed, or undefined once it was refused with `ignored`.
 */
export function admitMessage<M>(
  from: NodeId,
  raw: unknown,
  isMember: boolean,
  parse: (raw: unknown) => M | string,
  ctx: { emit(event: IgnoredEvent): void },
): M | undefined {
  if (!isMember) {
    ctx.emit({ type: 'ignored', from, reason: 'sender is not a member' })
    return undefined
  }
  const m = parse(raw)
  if (typeof m === 'string') {
    ctx.emit({ type: 'ignored', from, reason: m })
    return undefined
  }
  return m
}

/**
 * A peer's message as both timestamp algorithms admit it once they follow views: well formed, and
 * of this node's view from a member of it. A message of a later view is kept for that view (from
 * anyone: a joiner is not a member yet); one of an earlier view is dropped (`ignored`).
 */
export function admitViewed<M extends { view?: number }>(
  from: NodeId,
  raw: unknown,
  group: GroupView<M>,
  parse: (raw: unknown) => M | string,
  ctx: { emit(event: IgnoredEvent): void },
): M | undefined {
  const parsed = parse(raw)
  const view = typeof parsed === 'string' ? group.view : (parsed.view ?? 0)
  const admission = group.admit(from, view)
  // A stranger is refused first, as before views: what it sent is not looked at.
  if (admission === 'stranger') return admitMessage(from, raw, false, parse, ctx)
  if (typeof parsed === 'string') return admitMessage(from, raw, true, parse, ctx)
  if (admission === 'later') {
    if (!group.keep(from, view, parsed)) {
      ctx.emit({ type: 'ignored', from, reason: `message of view ${view} dropped: buffer full` })
    }
    return undefined
  }
  if (admission === 'stale') {
    ctx.emit({
      type: 'ignored',
      from,
      reason: `message of view ${view}, this node is in view ${group.view}`,
    })
    return undefined
  }
  return parsed
}
