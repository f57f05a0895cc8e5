import { isRecord } from '@sd/transport'

/**
 * The fields the checkers and the election API read from an event of any algorithm. The values
 * are unchecked (an event is whatever a protocol emitted): each reader checks what it uses.
 */
export interface EventFields {
  type: unknown
  leader: unknown
  term: unknown
}

/** The fields of `event`, or undefined when it is not a plain object (skipped, not trusted). */
export function eventFields(event: unknown): EventFields | undefined {
  return isRecord(event) ? { type: event.type, leader: event.leader, term: event.term } : undefined
}
