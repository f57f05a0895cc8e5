import type { NodeId, TraceEvent } from '@sd/transport'
import { messageType } from '@sd/transport'
import { drawEvent } from './cells.js'
import { chooseLayout, fullViewWidth, GAP, type Layout, timeLabel } from './layout.js'
import { showsProto } from './proto-filter.js'
import { displayWidth, padToWidth, truncateToWidth, wrapToWidth } from './width.js'

export interface DiagramOptions {
  nodes: readonly NodeId[]
  /** Extra text per event, from the scenario. */
  annotate?: ((event: TraceEvent) => string | undefined) | undefined
  /** Rows shown at most; the rest is counted. */
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
  const cellLines = layout.compact ? 1 : (options.cellLines ?? 2)
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
  let shown = 0
  let hidden = 0
  for (const event of trace) {
    if (options.proto !== undefined && !showsProto(event, options.proto)) continue
    if (event.type === 'send') {
      const type = messageType(event.msg)
      types.set(event.id, event.proto === undefined ? type : `${event.proto}:${type}`)
    }
    const drawn = drawEvent(event, types, options.annotate?.(event), layout.compact)
    if (drawn === undefined || (drawn.kind === 'cell' && !known.has(drawn.node))) continue
    if (shown >= maxRows) {
      hidden++
      continue
    }
    shown++
    const time = event.t.toFixed(layout.decimals).padStart(layout.timeWidth)
    if (drawn.kind === 'marker') {
      lines.push(marker(time, drawn.text, layout))
      continue
    }
    if (event.type === 'restart') down.delete(drawn.node)
    if (event.type === 'resume') paused.delete(drawn.node)
    const texts = wrapToWidth(
      drawn.text,
      inner,
      Math.max(cellLines, drawn.lines ?? 1),
      inner - INDENT,
    )
    texts.forEach((text, i) => {
      const own = i === 0 ? text : ' '.repeat(INDENT) + text
      const stamp = i === 0 ? time : ' '.repeat(layout.timeWidth)
      lines.push(line(stamp, (id) => (id === drawn.node ? own : rail(id))))
    })
    if (event.type === 'crash') {
      down.add(drawn.node)
      paused.delete(drawn.node) // a crash ends a pause (the backlog is dropped)
    }
    if (event.type === 'pause') paused.add(drawn.node)
  }
  if (hidden > 0) lines.push(`… ${hidden} more events (write them all with --trace FILE)`)
  lines.push(...notes(layout, fullViewWidth(nodes.length, lastTime), width))
  return lines.join('\n')
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
