import type { Clocks } from './causality.js'
import type { DownBand, LossBand, PartitionBand, ProcessId } from './model.js'
import type { Build, Sent } from './trace-build.js'

/**
 * A `DiagramGrower`'s state after some entries, saved as data to grow from again (a branch of a
 * line cut back to a past step): the build's lists only grow, and what is in them never changes
 * but for a band closed or a message duplicated later, so the state is their lengths (the lists
 * shared, not copied) and a copy of the few things that do change. Saving costs next to nothing;
 * restoring copies the lists' first items and opens again what was closed after the save.
 */
export interface GrowerState {
  /** The build saved from (its lists, read up to the lengths below). */
  build: Build
  read: number
  end: number
  skipped: number
  events: number
  timeline: number
  outcomes: number
  down: number
  paused: number
  partitions: number
  losses: number
  marks: number
  duplicates: number
  sends: number
  processes: number
  protos: string[]
  types: string[]
  lamport: number[]
  /** Each process's last vector (the vectors are replaced at each event, never changed). */
  current: number[][]
  index: Map<ProcessId, number>
}

/** The state of `b` and `clocks` after `read` entries, the last at time `end`. */
export function saveState(b: Build, clocks: Clocks, read: number, end: number): GrowerState {
  return {
    build: b,
    read,
    end,
    skipped: b.skipped,
    events: b.events.length,
    timeline: b.timeline.length,
    outcomes: b.outcomes.length,
    down: b.down.length,
    paused: b.paused.length,
    partitions: b.partitions.length,
    losses: b.losses.length,
    marks: b.marks.length,
    duplicates: b.duplicates.length,
    sends: b.sends.size,
    processes: b.processes.length,
    protos: [...b.protos],
    types: [...b.types],
    lamport: clocks.lamport.slice(),
    current: clocks.current.slice(),
    index: clocks.index,
  }
}

/**
 * A build and clocks of their own as `s` saved them; undefined when the build was changed in a
 * way the state cannot undo (a message id sent again after the save).
 */
export function restoreState(s: GrowerState): { build: Build; clocks: Clocks } | undefined {
  const from = s.build
  const seqs = s.timeline
  const sends = new Map<string, Sent>()
  for (const [mid, sent] of from.sends) {
    if (sends.size === s.sends) break
    if (sent.send.seq >= seqs) return undefined
    sends.set(mid, { ...sent, copies: 1 })
  }
  const duplicates = from.duplicates.slice(0, s.duplicates)
  for (const dup of duplicates) {
    const sent = sends.get(dup.messageId)
    if (sent && sent.send.seq < dup.seq) sent.copies++
  }
  // Bands closed after the save are open again (copies: the saved build keeps its own).
  const reopen = <B extends { toSeq?: number; to?: number }>(band: B, ends: (keyof B)[]): B => {
    if (band.toSeq === undefined || band.toSeq < seqs) return { ...band }
    const open = { ...band }
    for (const k of ['to', 'toSeq', ...ends] as (keyof B)[]) delete open[k]
    return open
  }
  const down = from.down.slice(0, s.down).map((b) => reopen<DownBand>(b, []))
  const paused = from.paused.slice(0, s.paused).map((b) => reopen<DownBand>(b, []))
  const partitions = from.partitions
    .slice(0, s.partitions)
    .map((b) => reopen<PartitionBand>(b, ['healId']))
  const losses = from.losses.slice(0, s.losses).map((b) => reopen<LossBand>(b, ['endId']))
  const openOf = (bands: DownBand[]) =>
    new Map(bands.filter((b) => b.toSeq === undefined).map((b) => [b.process, b]))
  const processes = from.processes.slice(0, s.processes)
  const build: Build = {
    processes,
    known: new Set(processes),
    events: from.events.slice(0, s.events),
    timeline: from.timeline.slice(0, seqs),
    sends,
    outcomes: from.outcomes.slice(0, s.outcomes),
    down,
    paused,
    partitions,
    losses,
    marks: from.marks.slice(0, s.marks),
    duplicates,
    protos: new Set(s.protos),
    types: new Set(s.types),
    openDown: openOf(down),
    openPause: openOf(paused),
    openPartition: lastOpen(partitions),
    openLoss: lastOpen(losses),
    skipped: s.skipped,
  }
  return {
    build,
    clocks: { index: s.index, current: s.current.slice(), lamport: s.lamport.slice() },
  }
}

/** The last band not closed (a partition or loss in force). */
function lastOpen<B extends { toSeq?: number }>(bands: readonly B[]): B | undefined {
  const last = bands.at(-1)
  return last?.toSeq === undefined ? last : undefined
}
