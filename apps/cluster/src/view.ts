/**
 * The live view: a table with a row per node, redrawn in place on a terminal, or plain lines
 * (one per notable happening, and a status line now and then) when stdout is not a TTY.
 * `renderTable` is pure: state in, text out.
 */
import { formatToken } from './node/protocol.js'

export interface NodeRow {
  id: string
  address: string
  state: 'starting' | 'up' | 'down' | 'paused' | 'stopped'
  /** Cut off by the partition. */
  cut: boolean
  role: 'leader' | 'follower' | 'candidate' | 'no leader' | undefined
  term: number | undefined
  leader: string | undefined
  /** The node's software clock minus the machine's (ms). */
  clockMs: number | undefined
  /** The token it holds the lock with, if it does. */
  holds: number | undefined
  /** It coordinates the lock (its lock's coordinator is itself). */
  coordinator: boolean
}

export interface ViewState {
  mode: 'netns' | 'loopback'
  /** How far the workload is (ms since it started): the header's progress. */
  elapsedMs: number
  /** The run's clock (ms since its origin): the log's, the trace's and the summary's time. */
  runMs: number
  seconds: number
  rows: NodeRow[]
  counter: number
  acknowledged: number
  fencingRejections: number
  terms: number
  violations: number
  /** What the chaos script is doing now. */
  chaos: string
  /** The latest happenings, oldest first. */
  log: string[]
}

const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length))
const padLeft = (s: string, n: number) => (s.length >= n ? s : ' '.repeat(n - s.length) + s)

export function formatClock(ms: number | undefined): string {
  if (ms === undefined) return '-'
  const sign = ms >= 0 ? '+' : '-'
  return `${sign}${Math.abs(ms).toFixed(1)} ms`
}

/** Wide enough for the longest lines of the table at 80 columns (the terminal's last is left free). */
export const TABLE_WIDTH = 79

/** `leader`, `follows n2`, `candidate`, `no leader`; `+lock` when its lock coordinates. */
function roleOf(r: NodeRow): string {
  if (r.state === 'down' || r.state === 'starting' || r.role === undefined) return '-'
  const role = r.role === 'follower' && r.leader !== undefined ? `follows ${r.leader}` : r.role
  return `${role}${r.coordinator ? '+lock' : ''}`
}

// The per-node message counters are in the summary: the table stops at `lock` to fit 80 columns.
const COLUMNS: Array<{
  title: string
  width: number
  right?: boolean
  cell: (r: NodeRow) => string
}> = [
  { title: 'node', width: 4, cell: (r) => r.id },
  { title: 'host', width: 15, cell: (r) => r.address },
  {
    title: 'state',
    width: 8,
    cell: (r) => (r.state === 'up' && r.cut ? 'cut off' : r.state),
  },
  { title: 'role', width: 11, cell: roleOf },
  {
    title: 'term',
    width: 4,
    right: true,
    cell: (r) => (r.term === undefined ? '-' : String(r.term)),
  },
  { title: 'clock', width: 10, right: true, cell: (r) => formatClock(r.clockMs) },
  {
    title: 'lock',
    width: 14,
    cell: (r) => (r.holds === undefined ? '-' : `holds ${formatToken(r.holds)}`),
  },
]

/** The view as lines of text (no escape codes). */
export function renderTable(v: ViewState): string[] {
  const lines: string[] = []
  const t = `${(v.elapsedMs / 1000).toFixed(1)} s / ${v.seconds} s`
  const eq = v.counter === v.acknowledged ? '=' : '≠'
  lines.push(`sd cluster · ${v.mode} · ${v.rows.length} nodes · ${t}`)
  lines.push(
    `counter ${v.counter} ${eq} ${v.acknowledged} acknowledged · fenced ${v.fencingRejections} · terms ${v.terms} · violations ${v.violations}`,
  )
  lines.push('')
  const cell = (c: (typeof COLUMNS)[number], text: string) =>
    c.right ? padLeft(text, c.width) : pad(text, c.width)
  lines.push(
    COLUMNS.map((c) => cell(c, c.title))
      .join('  ')
      .trimEnd(),
  )
  for (const r of v.rows)
    lines.push(
      COLUMNS.map((c) => cell(c, c.cell(r)))
        .join('  ')
        .trimEnd(),
    )
  lines.push('')
  lines.push(`chaos: ${v.chaos}`)
  for (const l of v.log) lines.push(`  ${l}`)
  return lines
}

/** One status line for plain output. */
export function statusLine(v: ViewState): string {
  const who = v.rows
    .map((r) => {
      if (r.state !== 'up') return `${r.id}:${r.state}`
      const role = r.role === 'leader' ? 'L' : r.role === 'follower' ? 'F' : '?'
      return `${r.id}:${role}${r.term ?? '-'}${r.cut ? ':cut' : ''}${r.holds === undefined ? '' : `:holds ${formatToken(r.holds)}`}`
    })
    .join(' ')
  return `[${(v.runMs / 1000).toFixed(1)} s] ${who} · counter ${v.counter}/${v.acknowledged} · rejections ${v.fencingRejections} · terms ${v.terms}`
}

/** Draws the view: in place on a TTY, else as plain lines through `line`. */
export class Display {
  private drawn = 0
  private lastStatus = 0

  constructor(
    private readonly tty: boolean,
    private readonly write: (text: string) => void,
    private readonly line: (text: string) => void,
    /** The terminal's width: longer lines are cut, so that each takes one row to redraw. */
    private readonly columns: () => number | undefined = () => undefined,
  ) {}

  /** A notable happening: logged at once in plain mode (the table shows it in its log). */
  /** `runMs`: on the run's clock, as the status lines. */
  note(runMs: number, text: string): void {
    if (!this.tty) this.line(`[${(runMs / 1000).toFixed(1)} s] ${text}`)
  }

  draw(v: ViewState, force = false): void {
    if (this.tty) {
      const width = this.columns()
      const lines = renderTable(v).map((l) =>
        width !== undefined && [...l].length >= width ? [...l].slice(0, width - 1).join('') : l,
      )
      // Up to the first line drawn, then everything below it is cleared and drawn again.
      const up = this.drawn > 0 ? `\x1b[${this.drawn}F` : ''
      this.write(`${up}\x1b[J${lines.join('\n')}\n`)
      this.drawn = lines.length
    } else if (force || v.elapsedMs - this.lastStatus >= 2000) {
      this.lastStatus = v.elapsedMs
      this.line(statusLine(v))
    }
  }

  /** Leaves the last table on screen. */
  done(v: ViewState): void {
    this.draw(v, true)
  }
}
