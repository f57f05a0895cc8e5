import type {
  DownBand,
  DuplicateMark,
  EventKind,
  LossBand,
  MarkLine,
  PartitionBand,
  ProcessId,
  TimelineItem,
  VizEvent,
  VizMessage,
} from './model.js'
import { type Entry, findTraceClocks, protoOf } from './trace-entries.js'

/**
 * The diagram as it is built from an sd trace, entry by entry: the readers in `trace-messages.ts`
 * and `trace-faults.ts` add to it, `trace.ts` finishes it. Every entry drawn gets its seq here.
 */

/** A message sent: its send mark, how many copies the network made, what arrows it gets. */
export interface Sent {
  send: VizEvent
  copies: number
  msg: unknown
  proto?: string
  /** The message this one retransmits (the cluster's links write `resendOf`). */
  resendOf?: string
}

export interface Build {
  processes: ProcessId[]
  known: Set<ProcessId>
  events: VizEvent[]
  timeline: TimelineItem[]
  sends: Map<string, Sent>
  /** Deliveries and drops in time order; `trace-messages.ts` numbers their copies at the end. */
  outcomes: VizMessage[]
  down: DownBand[]
  paused: DownBand[]
  partitions: PartitionBand[]
  losses: LossBand[]
  marks: MarkLine[]
  duplicates: DuplicateMark[]
  protos: Set<string>
  types: Set<string>
  openDown: Map<ProcessId, DownBand>
  openPause: Map<ProcessId, DownBand>
  openPartition?: PartitionBand
  openLoss?: LossBand
  /** Entries of a type the page does not draw. */
  skipped: number
}

export function id(value: unknown): ProcessId {
  return String(value)
}

/** An empty build whose processes start with the trace's `nodes`, in their order. */
export function newBuild(nodes: readonly unknown[]): Build {
  const b: Build = {
    processes: [],
    known: new Set(),
    events: [],
    timeline: [],
    sends: new Map(),
    outcomes: [],
    down: [],
    paused: [],
    partitions: [],
    losses: [],
    marks: [],
    duplicates: [],
    protos: new Set(),
    types: new Set(),
    openDown: new Map(),
    openPause: new Map(),
    skipped: 0,
  }
  for (const n of nodes) addProcess(b, n)
  return b
}

/** The process `p` names, given a line the first time it is seen. */
export function addProcess(b: Build, p: unknown): ProcessId {
  const pid = id(p)
  if (!b.known.has(pid)) {
    b.known.add(pid)
    b.processes.push(pid)
  }
  return pid
}

/** The next timeline seq, for something at time `t` (on `process`'s line, caused by seq `after`). */
export function item(b: Build, t: number, process?: ProcessId, after?: number): number {
  const seq = b.timeline.length
  b.timeline.push({ seq, t, process, after })
  return seq
}

/** Adds the mark of entry `e` (index `index` in the trace) on `process`'s line. */
export function event(
  b: Build,
  index: number,
  e: Entry,
  process: ProcessId,
  kind: EventKind,
  label: string,
  extra: Partial<VizEvent> = {},
  after?: number,
): VizEvent {
  const proto = protoOf(e)
  if (proto) b.protos.add(proto)
  const payload = e.msg ?? e.event ?? e.req ?? (kind === 'storage' ? e.set : undefined)
  const v: VizEvent = {
    id: index,
    seq: item(b, e.t, process, after),
    process,
    t: e.t,
    kind,
    label,
    proto,
    raw: e,
    vc: [],
    lamport: 0,
    traceClocks: findTraceClocks(payload, kind === 'send' ? 'msg' : kind),
    ...extra,
  }
  b.events.push(v)
  return v
}
