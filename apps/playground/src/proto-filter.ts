import type { TraceEvent } from '@sd/transport'

/** Entries about a whole node or the network: kept whatever protocol is shown. */
const NODE_LEVEL = new Set<TraceEvent['type']>([
  'start',
  'crash',
  'restart',
  'partition',
  'heal',
  'loss',
  'mark',
  'clock',
  'clock-step',
  'pause',
  'resume',
  'error',
  'storage',
])

/** The child of a composed protocol an entry belongs to (`proto`), if any. */
export function protoOf(event: TraceEvent): string | undefined {
  return 'proto' in event ? event.proto : undefined
}

/**
 * Whether `event` belongs on a diagram filtered to protocol `name`: its own entries (and those of
 * compositions inside it: `app` shows `app/lock`), plus what happens to whole nodes.
 */
export function showsProto(event: TraceEvent, name: string): boolean {
  const proto = protoOf(event)
  if (proto === undefined) return NODE_LEVEL.has(event.type)
  return proto === name || proto.startsWith(`${name}/`)
}

/** Every protocol named in a trace, sorted (for the message when a filter matches none). */
export function protosIn(trace: readonly TraceEvent[]): string[] {
  const names = new Set<string>()
  for (const event of trace) {
    const proto = protoOf(event)
    if (proto !== undefined) names.add(proto)
  }
  return [...names].sort()
}
