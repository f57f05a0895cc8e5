import type { NodeId, TraceEvent } from '@sd/transport'
import { messageType } from '@sd/transport'

export interface DiagramOptions {
  nodes: readonly NodeId[]
  /** Extra text per event, from the scenario. */
  annotate?: ((event: TraceEvent) => string | undefined) | undefined
  /** Rows shown at most; the rest is counted. */
  maxRows?: number
  /** Column width per node. */
  width?: number
}

/**
 * A space-time diagram in text: one column per node, time going down, one row per event.
 * A send shows `→2 #5 ping` (to node 2, message 5), its delivery `←1 #5 ping` on the receiver.
 */
export function renderDiagram(trace: readonly TraceEvent[], options: DiagramOptions): string {
  const width = options.width ?? 18
  const maxRows = options.maxRows ?? 400
  const columns = new Map(options.nodes.map((id, i) => [id, i]))
  const types = new Map<number, string>()
  const lines: string[] = []
  const header = `${'t (ms)'.padStart(9)}  ${options.nodes.map((id) => fit(`node ${String(id)}`, width)).join('')}`
  lines.push(header, '-'.repeat(header.length))
  let shown = 0
  let hidden = 0
  for (const event of trace) {
    if (event.type === 'send') types.set(event.id, messageType(event.msg))
    const cell = describe(event, types)
    if (cell === undefined) continue
    const [node, text] = cell
    const column = columns.get(node)
    if (column === undefined) continue
    if (shown >= maxRows) {
      hidden++
      continue
    }
    const note = options.annotate?.(event)
    lines.push(
      `${event.t.toFixed(3).padStart(9)}  ${row(options.nodes.length, column, note ? `${text} ${note}` : text, width)}`,
    )
    shown++
  }
  if (hidden > 0) lines.push(`… ${hidden} more events (write them all with --trace FILE)`)
  return lines.join('\n')
}

function describe(event: TraceEvent, types: Map<number, string>): [NodeId, string] | undefined {
  switch (event.type) {
    case 'send':
      return [event.from, `→${String(event.to)} #${event.id} ${types.get(event.id)}`]
    case 'deliver':
      return [event.to, `←${String(event.from)} #${event.id} ${types.get(event.id) ?? ''}`]
    case 'drop':
      return [event.from, `✕ #${event.id} ${event.reason}`]
    case 'duplicate':
      return [event.from, `⧉ #${event.id} duplicated`]
    case 'timer-fire':
      return [event.node, `⏰ ${event.key}`]
    case 'emit':
      return [event.node, `★ ${short(event.event)}`]
    case 'request':
      return [event.node, `▶ ${short(event.req)}${event.dropped ? ' (dropped: down)' : ''}`]
    case 'crash':
      return [event.node, '💥 crash']
    case 'restart':
      return [event.node, '↻ restart']
    case 'error':
      return [event.node, `‼ ${event.message}`]
    default:
      return undefined
  }
}

function short(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  return text.length > 40 ? `${text.slice(0, 39)}…` : text
}

function fit(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length)
}

/** One row: the event's text in its column, `│` elsewhere; a long text runs over the columns to its right. */
function row(columns: number, column: number, text: string, width: number): string {
  const span = Math.ceil((text.length + 1) / width)
  let line = ''
  for (let i = 0; i < columns; ) {
    if (i === column) {
      line += fit(text, span * width)
      i += span
    } else {
      line += fit('│', width)
      i++
    }
  }
  return line.trimEnd()
}
