import { isRecord } from '@sd/transport'

/**
 * The fields the checkers and the election API read from an event of any algorithm. The values
 * are unchecked (an event is whatever a protocol emitted): each reader checks what it uses.
 */
export interface EventFields {
  type: unknown
  leader: unknown
  term: unknown
  /** A transfer's target (`transfer-started`, `transfer-failed`). */
  to: unknown
  /** Why (`transfer-failed`, `stepped-down`). */
  reason: unknown
}

/** The fields of `event`, or undefined when it is not a plain object (skipped, not trusted). */
export function eventFields(event: unknown): EventFields | undefined {
  if (!isRecord(event)) return undefined
  const { type, leader, term, to, reason } = event
  return { type, leader, term, to, reason }
}
