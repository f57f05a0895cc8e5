import type { Diagram, EventKind, VizEvent, VizMessage } from './model.js'

/** The protocol filter's name for entries that carry no `proto`. */
export const NO_PROTO = '(none)'

/** What the reader unticked. Faults (crashes, pauses, clock steps) are always shown, like partitions. */
export interface Filters {
  hiddenTypes: Set<string>
  hiddenProtos: Set<string>
  hiddenKinds: Set<EventKind>
}

/** Bookkeeping kinds, hidden until asked for: they crowd the lines and rarely explain a run. */
export const QUIET_KINDS: readonly EventKind[] = ['timer-set', 'timer-cancel', 'storage']

export function defaultFilters(): Filters {
  return { hiddenTypes: new Set(), hiddenProtos: new Set(), hiddenKinds: new Set(QUIET_KINDS) }
}

const FAULTS = new Set<EventKind>(['crash', 'restart', 'pause', 'resume', 'clock-step'])

export function eventShown(e: VizEvent, f: Filters): boolean {
  if (FAULTS.has(e.kind)) return true
  if (f.hiddenKinds.has(e.kind)) return false
  if (f.hiddenProtos.has(e.proto ?? NO_PROTO)) return false
  if (e.messageType !== undefined && f.hiddenTypes.has(e.messageType)) return false
  return true
}

export function messageShown(m: VizMessage, f: Filters): boolean {
  if (f.hiddenProtos.has(m.proto ?? NO_PROTO)) return false
  if (f.hiddenTypes.has(m.type)) return false
  return true
}

/** The protocol names a reader can filter on: the trace's, plus `(none)` if some entry has none. */
export function protoChoices(d: Diagram): string[] {
  if (d.protos.length === 0) return []
  const unlabeled =
    d.events.some((e) => e.proto === undefined && !FAULTS.has(e.kind) && e.kind !== 'start') ||
    d.messages.some((m) => m.proto === undefined)
  return unlabeled ? [...d.protos, NO_PROTO] : [...d.protos]
}

/**
 * The playback places a step stops at, in order: the seqs of the events, arrows (their arrival or
 * drop), duplicates, partition and loss bands and marks the filters show.
 */
export function stopsOf(d: Diagram, f: Filters): number[] {
  const stops = new Set<number>()
  for (const e of d.events) if (eventShown(e, f)) stops.add(e.seq)
  for (const m of d.messages) if (messageShown(m, f)) stops.add(m.seq)
  for (const p of d.partitions) {
    stops.add(p.fromSeq)
    if (p.toSeq !== undefined) stops.add(p.toSeq)
  }
  for (const l of d.losses) {
    stops.add(l.fromSeq)
    if (l.toSeq !== undefined) stops.add(l.toSeq)
  }
  for (const m of d.marks) stops.add(m.seq)
  for (const dup of d.duplicates) stops.add(dup.seq)
  return [...stops].sort((a, b) => a - b)
}

/** The next stop after `now`, or undefined at the end. */
export function nextStop(stops: readonly number[], now: number): number | undefined {
  return stops.find((s) => s > now)
}

/** The stop before `now`, or -1 (nothing shown yet). */
export function previousStop(stops: readonly number[], now: number): number {
  for (let i = stops.length - 1; i >= 0; i--) if (stops[i]! < now) return stops[i]!
  return -1
}

/** How many events and arrows the filters show up to timeline seq `now`. */
export function shownCounts(
  d: Diagram,
  f: Filters,
  now: number,
): { events: number; arrows: number } {
  let events = 0
  let arrows = 0
  for (const e of d.events) if (e.seq <= now && eventShown(e, f)) events++
  for (const m of d.messages) if (m.seq <= now && messageShown(m, f)) arrows++
  return { events, arrows }
}
