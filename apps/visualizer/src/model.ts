/**
 * What the page draws, whatever the input was (an sd trace or a ShiViz log): processes, their
 * events in order, the messages between them, and the faults as bands. Pure data; `trace.ts` and
 * `shiviz.ts` build it, `causality.ts` gives every event its vector and Lamport timestamps.
 */

export type ProcessId = string

/** Kinds of process events: one mark each on its process line. */
export type EventKind =
  | 'send'
  | 'deliver'
  | 'timer-set'
  | 'timer-fire'
  | 'timer-cancel'
  | 'request'
  | 'emit'
  | 'storage'
  | 'start'
  | 'crash'
  | 'restart'
  /** a node stopped and continued with its state (the simulator's pause / resume) */
  | 'pause'
  | 'resume'
  | 'clock'
  /** the node's wall clock jumped (its monotonic clock did not) */
  | 'clock-step'
  | 'error'
  /** an event of a ShiViz log: only its text is known */
  | 'log'

/** A clock value the trace itself carries, e.g. `msg.vector` or `event.local`. */
export interface TraceClock {
  path: string
  value: number | number[]
}

export interface VizEvent {
  /** Its index in the input (the trace's `events` array, or the ShiViz log's entries): `data-event`. */
  id: number
  /** Its place in the playback order (every drawn item has one, from 0). */
  seq: number
  process: ProcessId
  /** Virtual time in ms (sd traces), or the position in the log (ShiViz). */
  t: number
  kind: EventKind
  /** A short label: `→2 #5 ping`, `★ elected`... */
  label: string
  proto?: string
  /** For a send or a delivery: the trace's message id and the message's type. */
  messageId?: string
  messageType?: string
  /** The other end of a send (its receiver) or of a delivery (its sender). */
  peer?: ProcessId
  /** The input entry, shown on hover. */
  raw: unknown
  /** Vector timestamp, one entry per process in `Diagram.processes` order. */
  vc: number[]
  lamport: number
  /** Clock values found in the entry itself (the clocks scenarios carry their own). */
  traceClocks: TraceClock[]
}

export type Outcome = 'deliver' | 'drop' | 'in-flight'

/** One arrow: a copy of a message from its send to its delivery, its drop, or the end of the run. */
export interface VizMessage {
  /** The trace's message id: `data-message`. A duplicated message has two arrows with one id. */
  id: string
  /** Which copy (0, then 1 for a duplicate's second). */
  copy: number
  from: ProcessId
  to: ProcessId
  send?: VizEvent
  deliver?: VizEvent
  outcome: Outcome
  /** For a drop: why, when, and its playback place. */
  drop?: { reason: string; t: number; seq: number; id: number; atReceiver: boolean }
  /** The message was duplicated by the network. */
  duplicated: boolean
  /** The link's retransmission of this earlier message (whose transmission was dropped). */
  resendOf?: string
  type: string
  proto?: string
  /** Playback place from which the arrow is drawn whole (its delivery or drop; its send if in flight). */
  seq: number
}

/** A process down (crash to restart) or paused (pause to resume), to the end if never back. */
export interface DownBand {
  process: ProcessId
  from: number
  to?: number
  fromSeq: number
  toSeq?: number
}

/** A partition: from `partition` to `heal` (or to the end). */
export interface PartitionBand {
  groups: ProcessId[][]
  from: number
  to?: number
  fromSeq: number
  toSeq?: number
  /** The trace indices of the partition and heal entries. */
  id: number
  healId?: number
}

/** Packet loss: from `loss` with a percent to `loss` 0 (or another percent, or the end). */
export interface LossBand {
  percent: number
  from: number
  to?: number
  fromSeq: number
  toSeq?: number
  /** The trace indices of the entry that starts it and of the one that ends it. */
  id: number
  endId?: number
}

/** A labelled instant across all lines: a `mark` entry (`workload starts`). */
export interface MarkLine {
  id: number
  t: number
  seq: number
  label: string
}

/** A `duplicate` entry: the network will deliver this message twice. */
export interface DuplicateMark {
  id: number
  messageId: string
  from: ProcessId
  to: ProcessId
  t: number
  seq: number
}

/** A playback item in order: an event, a drop, a duplicate, a partition or heal. */
export interface TimelineItem {
  seq: number
  t: number
  /** The process whose line it sits on, or undefined for a band across all (partition, heal). */
  process?: ProcessId
  /** A delivery: the seq of its send, so that the layout puts it after the send. */
  after?: number
}

/**
 * One operation of a history that is not linearizable, as the trace's `historyCheck` carries it
 * (the cluster writes it): drawn as an interval on its process line.
 */
export interface HistoryOperation {
  process: ProcessId
  /** Who invoked it (the cluster's `node#pid`). */
  client: string
  /** Invocation and completion (ms on the trace's clock); no completion: pending to the end. */
  from: number
  to?: number
  label: string
}

/** A model's verdict on the run's history; `operations` is its failing sub-history, if any. */
export interface HistoryVerdict {
  model: string
  verdict: 'linearizable' | 'not-linearizable' | 'unknown'
  message?: string
  minimal?: boolean
  operations: HistoryOperation[]
}

export interface Diagram {
  format: 'sd-trace' | 'shiviz'
  /** A line under the title: seed, counts. */
  title: string
  processes: ProcessId[]
  /** In playback order. */
  events: VizEvent[]
  messages: VizMessage[]
  down: DownBand[]
  /** Processes paused: from `pause` to `resume` (or to the end). */
  paused: DownBand[]
  partitions: PartitionBand[]
  losses: LossBand[]
  marks: MarkLine[]
  duplicates: DuplicateMark[]
  timeline: TimelineItem[]
  /** `ms` for sd traces; `step` for ShiViz logs, which have no time. */
  timeUnit: 'ms' | 'step'
  /** Protocol names (`proto`) found, sorted. */
  protos: string[]
  messageTypes: string[]
  /** Entries that could not be drawn (unknown types), counted for a note. */
  skipped: number
  /** Whether the vector clocks were read from the input (ShiViz) or computed from the messages. */
  clocksFrom: 'input' | 'messages'
  /** The trace's `historyCheck`: the run's history judged per model (absent without one). */
  histories?: HistoryVerdict[]
}

export class InputError extends Error {
  override name = 'InputError'
}
