import type { NodeId, TraceEvent } from '@sd/transport'
import { messageType } from '@sd/transport'
import { type Drawn, drawEvent } from './cells.js'
import { type Condensed, type CondenseRow, condense, gapText } from './condense.js'
import { chooseLayout, fullViewWidth, GAP, type Layout, timeLabel } from './layout.js'
import { showsProto } from './proto-filter.js'
import { displayWidth, padToWidth, truncateToWidth, wrapToWidth } from './width.js'

export interface DiagramOptions {
  nodes: readonly NodeId[]
  /** Extra text per event, from the scenario. */
  annotate?: ((event: TraceEvent) => string | undefined) | undefined
  /** Rows the scenario says carry its story: never folded. */
  story?: ((event: TraceEvent) => boolean) | undefined
  /**
   * Rows to aim for: past it, message and timer rows are folded into counted gaps (rarest
   * kinds kept first); rows that carry the story are always drawn. Nothing is cut off the end.
   */
  maxRows?: number
  /** Terminal columns the diagram should fit in (default 100). */
  width?: number
  /** Lines a cell may take in the full view; the rest is cut (…). Default 2. */
  cellLines?: number
  /** Only this child of a composed protocol (and what happens to whole nodes). */
  proto?: string | undefined
}

/** Continuation lines of a cell are indented by this much, so they read as the row above's. */
const INDENT = 2
const UP = '│'
const DOWN = '┊'
/** A paused node's column, from its pause to its resume: the band of time it runs nothing. */
const PAUSED = '┃'

/**
 * A space-time diagram in text: one column per node, time going down, one row per event.
 * A send shows `→2 #5 ping` (to node 2, message 5), its delivery `←1 #5 ping` on the receiver.
 * Every column keeps its width: a cell too long for its column goes on indented lines under its
 * row (full view) or is cut (compact view, chosen when the full one does not fit `width`), but for
 * cells that ask for more lines (a compact cell's note).
 * Partitions and heals are rows across the whole diagram.
 */
export function renderDiagram(trace: readonly TraceEvent[], options: DiagramOptions): string {
  const { nodes } = options
  const width = options.width ?? 100
  const maxRows = options.maxRows ?? 400
  const lastTime = trace.reduce((max, e) => Math.max(max, e.t), 0)
  const layout = chooseLayout(nodes.length, width, lastTime)
  // A compact cell that does not fit its narrow column goes on under its row: `→1` then `election`.
  const cellLines = layout.compact ? 2 : (options.cellLines ?? 2)
  const known = new Set(nodes)
  const down = new Set<NodeId>()
  const paused = new Set<NodeId>()
  const types = new Map<number, string>()

  const line = (time: string, cell: (id: NodeId) => string) =>
    `${time}${' '.repeat(GAP)}${nodes.map((id) => padToWidth(cell(id), layout.column)).join('')}`.trimEnd()
  const inner = layout.column - 1
  const lines = [
    line(timeLabel(layout), (id) =>
      truncateToWidth(layout.compact ? String(id) : `node ${String(id)}`, inner),
    ),
    '-'.repeat(layout.total),
  ]
  const rail = (id: NodeId) => (down.has(id) ? DOWN : paused.has(id) ? PAUSED : UP)
  // First every row the diagram could draw, then the story kept within maxRows (condense).
  const rows: CondenseRow<{ event: TraceEvent; drawn: NonNullable<Drawn> }>[] = []
  for (const event of trace) {
    if (options.proto !== undefined && !showsProto(event, options.proto)) continue
    if (event.type === 'send') {
      const type = messageType(event.msg)
      types.set(event.id, event.proto === undefined ? type : `${event.proto}:${type}`)
    }
    const drawn = drawEvent(event, types, options.annotate?.(event), layout.compact)
    if (drawn === undefined || (drawn.kind === 'cell' && !known.has(drawn.node))) continue
    const story = options.story?.(event) === true
    const fold = story ? undefined : foldKind(event, types)
    const repeat = story ? undefined : repeatOf(event)
    rows.push({ t: event.t, fold, ...(repeat && { repeat }), item: { event, drawn } })
  }
  keepCauses(rows)
  const entries = condense(rows, maxRows)
  const idle = idleThreshold(entries.map(startOf))
  let lastEnd: number | undefined
  for (const entry of entries) {
    if (lastEnd !== undefined && startOf(entry) - lastEnd > idle)
      lines.push(
        gapRow(' '.repeat(layout.timeWidth), idleText(startOf(entry) - lastEnd), layout, width),
      )
    lastEnd = entry.kind === 'gap' ? entry.gap.to : entry.item.event.t
    if (entry.kind === 'gap') {
      const time = entry.gap.from.toFixed(layout.decimals).padStart(layout.timeWidth)
      lines.push(gapRow(time, gapText(entry.gap, layout.decimals), layout, width))
      continue
    }
    const { event, drawn } = entry.item
    const time = event.t.toFixed(layout.decimals).padStart(layout.timeWidth)
    if (drawn.kind === 'marker') {
      lines.push(marker(time, drawn.text, layout))
      continue
    }
    if (event.type === 'restart') down.delete(drawn.node)
    if (event.type === 'resume') paused.delete(drawn.node)
    // Compact columns are too narrow to indent: `election` needs all eight columns of its line.
    const indent = layout.compact ? 0 : INDENT
    // A note in a column under ten wide gets one line more: `★`, `follows`, `7 (term`, `16)`.
    const extra = layout.compact && drawn.lines !== undefined && inner < 10 ? 1 : 0
    const texts = cellText(drawn.text, inner, Math.max(cellLines, drawn.lines ?? 1) + extra, indent)
    texts.forEach((text, i) => {
      const own = i === 0 ? text : ' '.repeat(indent) + text
      const stamp = i === 0 ? time : ' '.repeat(layout.timeWidth)
      lines.push(line(stamp, (id) => (id === drawn.node ? own : rail(id))))
    })
    if (event.type === 'crash') {
      down.add(drawn.node)
      paused.delete(drawn.node) // a crash ends a pause (the backlog is dropped)
    }
    if (event.type === 'pause') paused.add(drawn.node)
  }
  lines.push(...notes(layout, fullViewWidth(nodes.length, lastTime), width))
  return lines.join('\n')
}

/**
 * What a row is folded as when the budget is short: its message type or timer key. Undefined
 * for rows that carry the story (emits, crashes, restarts, pauses, partitions, requests).
 */
function foldKind(event: TraceEvent, types: ReadonlyMap<number, string>): string | undefined {
  switch (event.type) {
    case 'send':
    case 'deliver':
    case 'drop':
    case 'duplicate':
      return types.get(event.id) ?? 'message'
    case 'timer-fire':
      return `⏰ ${event.key}`
    default:
      return undefined
  }
}

/**
 * A cell's lines. Raw JSON after a note (its own paragraph) is left out when it would be cut:
 * a truncated `{"proto…` tells nothing, and `--trace FILE` has it whole.
 */
function cellText(text: string, width: number, maxLines: number, indent: number): string[] {
  const all = wrapToWidth(text, width, Number.POSITIVE_INFINITY, width - indent, true)
  if (all.length <= maxLines) return all
  const brk = text.indexOf('\n')
  if (brk > 0) {
    const note = wrapToWidth(
      text.slice(0, brk),
      width,
      Number.POSITIVE_INFINITY,
      width - indent,
      true,
    )
    if (note.length <= maxLines) return note
  }
  return wrapToWidth(text, width, maxLines, width - indent, true)
}

/** An emit recurs as its node and type (`★ trusts` of node 5, poll after poll). */
function repeatOf(event: TraceEvent): { key: string; kind: string } | undefined {
  if (event.type !== 'emit') return undefined
  // A composed protocol's event wraps its child's (`{ proto, event }`): the typed one inside.
  let inner = event.event
  while (typeof inner === 'object' && inner !== null && typeOfValue(inner) === undefined)
    inner = 'event' in inner ? inner.event : undefined
  const found = typeOfValue(inner)
  const type = typeof found === 'string' ? found : 'event'
  return { key: `${String(event.node)} ${type}`, kind: `★ ${type}` }
}

function typeOfValue(value: unknown): unknown {
  return typeof value === 'object' && value !== null && 'type' in value ? value.type : undefined
}

/**
 * The delivery or timer a node was handling when it emitted something (a coordinator message
 * before "follows 6", an adjustment before "+84.8 ms") explains it: kept before any other
 * message row. A handler's emits follow its trigger at the same node and time.
 */
function keepCauses(rows: CondenseRow<{ event: TraceEvent }>[]): void {
  const trigger = new Map<NodeId, CondenseRow<{ event: TraceEvent }>>()
  for (const row of rows) {
    const { event } = row.item
    if (event.type === 'deliver') trigger.set(event.to, row)
    else if (event.type === 'timer-fire' || event.type === 'request') trigger.set(event.node, row)
    else if (event.type === 'emit') {
      const cause = trigger.get(event.node)
      if (cause !== undefined && cause.t === event.t) cause.cause = true
    }
  }
}

/** A folded run: `  1.0  ┄ 40 rows folded, 1.0–60.0 ms: heartbeat ×30, …`. */
function gapRow(time: string, text: string, layout: Layout, width: number): string {
  const room = Math.max(layout.total, width) - layout.timeWidth - GAP
  return `${time}${' '.repeat(GAP)}${truncateToWidth(`┄ ${text}`, room)}`
}

/** When a drawn row or gap starts. */
function startOf(entry: Condensed<{ event: TraceEvent }>): number {
  return entry.kind === 'gap' ? entry.gap.from : entry.item.event.t
}

/**
 * A pause between two drawn rows long enough to mark (`┄ 59 ms idle`): twenty times the median
 * step between rows, and a fiftieth of the run, so a row diagram, which has no time scale, still
 * shows where the run waited (7 down for 70 ms before it returns).
 */
export function idleThreshold(starts: readonly number[]): number {
  const steps = starts
    .slice(1)
    .map((t, i) => t - (starts[i] as number))
    .filter((d) => d > 0)
    .sort((a, b) => a - b)
  if (steps.length === 0) return Number.POSITIVE_INFINITY
  const median = steps[Math.floor(steps.length / 2)] as number
  const span = (starts[starts.length - 1] as number) - (starts[0] as number)
  return Math.max(20 * median, span / 50)
}

function idleText(ms: number): string {
  return `${ms >= 100 ? ms.toFixed(0) : ms.toPrecision(2)} ms idle`
}

/** A row across every column: `── partition {1,2} | {3} ─────`. */
function marker(time: string, text: string, layout: Layout): string {
  const room = layout.total - layout.timeWidth - GAP
  const label = truncateToWidth(`── ${text} `, room)
  return `${time}${' '.repeat(GAP)}${label}${'─'.repeat(Math.max(2, room - displayWidth(label)))}`
}

/** Why the diagram looks the way it does, when it is not the full view. */
function notes(layout: Layout, fullWidth: number, width: number): string[] {
  if (!layout.compact) return []
  const lines = [
    `compact view: columns of ${layout.column}; the full view needs --width ${fullWidth} (--trace FILE has every detail)`,
  ]
  if (!layout.fits)
    lines.push(
      `this diagram is ${layout.total} columns wide, more than ${width}: fewer nodes (--n) fit`,
    )
  return lines
}
