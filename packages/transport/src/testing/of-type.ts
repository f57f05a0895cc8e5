import type { TimedEvent, TraceEvent } from '../sim/trace.js'

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

/**
 * The trace entries (`net.trace`, a trace file's `events`) of one `type`, narrowed to that kind
 * of entry, so a test reads `msg`, `key` or `set` without casting.
 */
export function traceOfType<T extends TraceEvent['type']>(
  trace: readonly TraceEvent[],
  type: T,
): Extract<TraceEvent, { type: T }>[] {
  return trace.filter((e): e is Extract<TraceEvent, { type: T }> => e.type === type)
}
