import { messageType } from '@sd/transport'
import { assignClocks } from './causality.js'
import type { Diagram, VizMessage } from './model.js'
import { type Build, newBuild } from './trace-build.js'
import { checkDocument, type Entry, timeOrder } from './trace-entries.js'
import { readHeal, readLoss, readMark, readNodeEvent, readPartition } from './trace-faults.js'
import { historyTitle, readHistoryCheck } from './trace-history.js'
import { arrowsOf, readDeliver, readDrop, readDuplicate, readSend } from './trace-messages.js'
import { formatTime } from './units.js'

export { findTraceClocks } from './trace-entries.js'
/** The type of a message for filtering, as the simulator counts it. */
export { messageType }

/**
 * An sd trace (`TraceDocument`, as `sd run --trace` and the cluster app write it) as a diagram.
 * Entries are taken in time order (stable: the simulator's order within one instant is kept),
 * so traces merged from real processes draw too. Causality comes from the messages (see
 * `assignClocks`).
 */
export function traceToDiagram(doc: unknown): Diagram {
  const { nodes, events: raw, seed } = checkDocument(doc)
  const b = newBuild(nodes)
  for (const index of timeOrder(raw)) {
    const e = raw[index]!
    readerOf(e.type)(b, index, e)
  }
  assignClocks(b.events, b.processes, (d) =>
    d.messageId ? b.sends.get(d.messageId)?.send : undefined,
  )
  return finishDiagram(b, lastTime(raw), seed, readHistoryCheck(doc))
}

/** The latest time of the entries (0 for none), for the title. */
export function lastTime(raw: readonly Entry[]): number {
  return raw.reduce((most, e) => Math.max(most, e.t), raw.length === 0 ? 0 : -Infinity)
}

/** The diagram of a build whose entries are all read and whose events are stamped. */
export function finishDiagram(
  b: Build,
  end: number,
  seed: unknown,
  histories?: Diagram['histories'],
): Diagram {
  const messages = arrowsOf(b)
  return {
    format: 'sd-trace',
    title: titleOf(b, messages, end, seed) + historyTitle(histories),
    processes: b.processes,
    events: b.events,
    messages,
    down: b.down,
    paused: b.paused,
    partitions: b.partitions,
    losses: b.losses,
    marks: b.marks,
    duplicates: b.duplicates,
    timeline: b.timeline,
    timeUnit: 'ms',
    protos: [...b.protos].sort(),
    messageTypes: [...new Set([...b.types, ...messages.map((m) => m.type)])].sort(),
    skipped: b.skipped,
    clocksFrom: 'messages',
    ...(histories === undefined ? {} : { histories }),
  }
}

export type Reader = (b: Build, index: number, e: Entry) => void

/** What adds an entry of type `type` to the build: messages, faults, else a node event. */
export function readerOf(type: string): Reader {
  switch (type) {
    case 'send':
      return readSend
    case 'deliver':
      return readDeliver
    case 'drop':
      return readDrop
    case 'duplicate':
      return readDuplicate
    case 'partition':
      return readPartition
    case 'loss':
      return readLoss
    case 'mark':
      return readMark
    case 'heal':
      return readHeal
    default:
      return readNodeEvent
  }
}

/** `seed 7 · 3 processes · 40 events · 12 message arrows · over 250 ms`. */
function titleOf(b: Build, messages: VizMessage[], end: number, seed: unknown): string {
  return [
    seed === undefined ? undefined : `seed ${String(seed)}`,
    `${b.processes.length} processes`,
    `${b.events.length} events`,
    `${messages.length} message arrows`,
    `over ${formatTime(end, 'ms')}`,
  ]
    .filter(Boolean)
    .join(' · ')
}
