import type { NodeId, TraceEvent } from '@sd/transport'

/** What a trace event becomes on the diagram: text in one node's column, or a full-width marker. */
export type Drawn =
  | {
      kind: 'cell'
      node: NodeId
      text: string
      /** Lines the cell may take even in the compact view (a note is cut to nonsense in one). */
      lines?: number
    }
  | { kind: 'marker'; text: string }
  | undefined

/** A drawing in one node's column. */
type Cell = Extract<NonNullable<Drawn>, { kind: 'cell' }>

/**
 * The drawing of `event`. `types` maps message ids to their type (filled from sends), `note` is
 * the scenario's annotation. The note comes before any raw JSON: it is what the reader wants.
 * Compact cells keep what the story needs, in words (message type, drop reason, the note or the
 * event's type) and leave out message ids and raw JSON, which `--trace FILE` has.
 */
export function drawEvent(
  event: TraceEvent,
  types: ReadonlyMap<number, string>,
  note: string | undefined,
  compact: boolean,
): Drawn {
  const cell = (node: NodeId, ...parts: (string | undefined)[]): Cell => ({
    kind: 'cell',
    node,
    text: parts.filter((p) => p !== undefined && p !== '').join(' '),
    ...(note === undefined ? {} : { lines: NOTE_LINES }),
  })
  // Raw JSON after a note starts a line of its own: the note stays whole on the row. Compact
  // cells name the event or request by its type instead.
  const afterNote = (value: unknown) =>
    compact
      ? note === undefined
        ? typeOf(value)
        : undefined
      : note === undefined
        ? raw(value)
        : `\n${raw(value)}`
  const withNote = note
  const id = (n: number) => (compact ? undefined : `#${n}`)
  switch (event.type) {
    case 'send':
      return cell(event.from, `→${String(event.to)}`, id(event.id), types.get(event.id), withNote)
    case 'deliver':
      return cell(event.to, `←${String(event.from)}`, id(event.id), types.get(event.id), withNote)
    case 'drop': {
      // The reason is the row's point: in a narrow column it goes on between its words.
      const reason = compact ? event.reason.replaceAll('-', ' ') : event.reason
      const drawn = cell(event.from, '✕', id(event.id), reason, withNote)
      return { ...drawn, lines: Math.max(drawn.lines ?? 1, REASON_LINES) }
    }
    case 'duplicate':
      return cell(event.from, '⧉', id(event.id), 'duplicated')
    case 'timer-fire':
      return cell(event.node, '⏰', event.key, withNote)
    case 'emit':
      return cell(event.node, '★', note, afterNote(event.event))
    case 'request':
      return cell(
        event.node,
        '▶',
        event.dropped ? '(dropped: down)' : undefined,
        note,
        afterNote(event.req),
      )
    case 'crash':
      return cell(event.node, compact ? '💥' : '💥 crash', withNote)
    case 'restart':
      return cell(event.node, compact ? '↻' : '↻ restart', withNote)
    case 'pause':
      return cell(event.node, compact ? PAUSE : `${PAUSE} pause`, withNote)
    case 'resume':
      return cell(
        event.node,
        compact ? `${PAUSE}▸` : `${PAUSE}▸ resume (${event.backlog} held)`,
        withNote,
      )
    case 'clock-step':
      return cell(
        event.node,
        CLOCK_STEP,
        signed(event.deltaMs),
        compact ? undefined : 'ms',
        withNote,
      )
    case 'error':
      return cell(event.node, '‼', event.message)
    case 'partition':
      return { kind: 'marker', text: `partition ${event.groups.map(group).join(' | ')}` }
    case 'heal':
      return { kind: 'marker', text: 'heal' }
    case 'loss':
      return { kind: 'marker', text: event.percent > 0 ? `loss ${event.percent}%` : 'loss ends' }
    case 'mark':
      return { kind: 'marker', text: event.label }
    default:
      return undefined
  }
}

/** Lines a drop may take, in any view: `receiver crashed` in a column of 10. */
const REASON_LINES = 2
/** Lines a cell with a scenario's note may take, in any view. */
const NOTE_LINES = 3

/**
 * An event's or request's `type` (`leader`, `acquire`); without one, its fields as `key=value`
 * (`delivered=2`), or its clipped JSON.
 */
function typeOf(value: unknown): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return raw(value)
  if ('type' in value && typeof value.type === 'string') return value.type
  return raw(
    Object.entries(value)
      .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join(' '),
  )
}

/** A node's pause and resume. */
const PAUSE = '‖'
/** A jump of a node's wall clock. */
const CLOCK_STEP = '⇅'

function signed(ms: number): string {
  return `${ms > 0 ? '+' : ''}${ms}`
}

/** A value as JSON, clipped: the trace file (--trace) has it whole. */
function raw(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  return text.length > 48 ? `${text.slice(0, 47)}…` : text
}

/** A group of a partition, runs of 3 or more consecutive ids written as ranges: {1..32}. */
export function group(ids: readonly NodeId[]): string {
  const parts: string[] = []
  for (let i = 0; i < ids.length; ) {
    let j = i
    while (isNext(ids[j], ids[j + 1])) j++
    parts.push(j - i >= 2 ? `${String(ids[i])}..${String(ids[j])}` : String(ids[i]))
    if (j - i === 1) parts.push(String(ids[j]))
    i = j + 1
  }
  return `{${parts.join(',')}}`
}

function isNext(a: NodeId | undefined, b: NodeId | undefined): boolean {
  return typeof a === 'number' && typeof b === 'number' && b === a + 1
}
