import type { NodeId } from '@sd/transport'
import type { IgnoredEvent } from './local-request.js'

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
