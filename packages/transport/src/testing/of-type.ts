import type { TimedEvent } from '../sim/trace.js'

/**
 * The events whose `type` is `type`, narrowed to that member of the protocol's event union, so
 * a test reads their fields without casting.
 */
export function ofType<Ev extends { type: string }, T extends Ev['type']>(
  events: readonly TimedEvent<Ev>[],
  type: T,
): TimedEvent<Extract<Ev, { type: T }>>[] {
  return events.filter((e): e is TimedEvent<Extract<Ev, { type: T }>> => e.event.type === type)
}
