import { InvalidClockArgumentError } from './errors.js'
import type { NodeId } from './ids.js'
import { SparseVectorClock } from './vector-sparse.js'

/**
 * The parser regular expression for the GoVector log format, to paste into ShiViz's input page
 * (or to put on the first line of a file uploaded to ShiViz; see `toShiVizLog`'s `header`).
 */
export const SHIVIZ_REGEX = '(?<host>\\S*) (?<clock>{.*})\\n(?<event>.*)'

/** One event of a ShiViz log: who, its vector timestamp, and a one-line description. */
export interface ShiVizEntry {
  host: NodeId
  clock: SparseVectorClock | Readonly<Record<string, number>>
  event: string
}

export interface ShiVizOptions {
  /**
   * Start with the two lines ShiViz expects in an uploaded file: the parser regex and an empty
   * multiple-executions delimiter. Default false: plain GoVector log lines.
   */
  header?: boolean
}

/**
 * Writes the GoVector format: a line `host {"A":1, "B":3}` then a line with the event. Checks
 * what ShiViz checks, so a bad log fails here with a clear message instead of in the browser:
 * host names without white space (nor control characters), the host present in its own clock,
 * its own entry going 1, 2, 3... over its events, and every other entry naming a host that has
 * at least that many events in the log. Line terminators and control characters in event text
 * are written as escapes (`\n`, `\u2028`...): ShiViz would end the event there, and the rest of
 * the text could pass for an event of its own.
 */
export function toShiVizLog(entries: Iterable<ShiVizEntry>, options: ShiVizOptions = {}): string {
  const lines: string[] = options.header ? [SHIVIZ_REGEX, ''] : []
  const eventsOf = new Map<string, number>()
  const logged: { host: string; clock: Readonly<Record<string, number>> }[] = []
  for (const entry of entries) {
    const host = String(entry.host)
    if (host === '' || /\s/.test(host) || hasControlCharacter(host)) {
      throw new InvalidClockArgumentError(
        `ShiViz host names cannot be empty or contain white space or control characters, got ${JSON.stringify(host)}`,
      )
    }
    const clock = entry.clock instanceof SparseVectorClock ? entry.clock.toObject() : entry.clock
    const own = clock[host]
    const expected = (eventsOf.get(host) ?? 0) + 1
    if (own !== expected) {
      throw new InvalidClockArgumentError(
        `ShiViz needs each host's own clock entry to count its events 1, 2, 3...: host ${host} has ${own ?? 'no entry'} where ${expected} was expected (tick by d = 1 once per logged event)`,
      )
    }
    eventsOf.set(host, own)
    logged.push({ host, clock })
    const body = Object.entries(clock)
      .filter(([, v]) => v > 0)
      // Keys with a value are hosts of the log (checked below), so JSON.stringify keeps them on one line.
      .map(([k, v]) => `${JSON.stringify(k)}:${v}`)
      .join(', ')
    lines.push(`${host} {${body}}`)
    lines.push(escapeLineText(entry.event))
  }
  checkOtherHosts(logged, eventsOf)
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`
}

/**
 * ShiViz refuses a clock entry for a host that logs no event, or a value beyond the events that
 * host logs: each entry must point at an event of the log.
 */
function checkOtherHosts(
  logged: readonly { host: string; clock: Readonly<Record<string, number>> }[],
  eventsOf: ReadonlyMap<string, number>,
): void {
  logged.forEach(({ host, clock }, index) => {
    for (const [other, value] of Object.entries(clock)) {
      if (!(value > 0) || other === host) continue
      const count = eventsOf.get(other)
      if (count === undefined) {
        throw new InvalidClockArgumentError(
          `ShiViz refuses a clock entry for a host with no events: event ${index + 1} of the log (host ${host}) has ${JSON.stringify(other)}: ${value}, but no event of ${JSON.stringify(other)} is logged (log its events too, or leave it out of the clock)`,
        )
      }
      if (value > count) {
        throw new InvalidClockArgumentError(
          `ShiViz refuses a clock entry beyond the events of its host: event ${index + 1} of the log (host ${host}) has ${JSON.stringify(other)}: ${value}, but ${JSON.stringify(other)} logs only ${count} event${count === 1 ? '' : 's'}`,
        )
      }
    }
  })
}

/** C0 and C1 controls (line feed, carriage return, NEL...), DEL, and the Unicode line and paragraph separators. */
function isControlOrLineBreak(code: number): boolean {
  return code <= 0x1f || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029
}

function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (isControlOrLineBreak(text.charCodeAt(i))) return true
  return false
}

const SHORT_ESCAPES: Readonly<Record<string, string>> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' }

/** Event text on one line that every reader (ShiViz, editors, terminals) keeps as one line. */
function escapeLineText(text: string): string {
  let out = ''
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    out += isControlOrLineBreak(code)
      ? (SHORT_ESCAPES[text[i]!] ?? `\\u${code.toString(16).padStart(4, '0')}`)
      : text[i]
  }
  return out
}

/**
 * The few fields of a simulator trace event (`TraceEvent` of `@sd/transport`) this module reads.
 * Sends and deliveries carry `from`, `to` and a message `id`; other events carry `node`.
 */
export interface TraceEventLike {
  readonly type: string
  readonly t?: number
  readonly node?: NodeId
  readonly from?: NodeId
  readonly to?: NodeId
  readonly id?: number
  readonly [field: string]: unknown
}

export interface TraceClockOptions {
  /** Which trace events become process events (default: send, deliver, emit, request, crash, restart). */
  include?: (event: TraceEventLike) => boolean
  /** The event text (default: a short description). */
  describe?: (event: TraceEventLike) => string
}

/** A trace event with the vector timestamp it gets from the trace's own sends and deliveries. */
export interface TracedEvent extends ShiVizEntry {
  host: NodeId
  clock: SparseVectorClock
  source: TraceEventLike
}

const DEFAULT_TYPES = new Set(['send', 'deliver', 'emit', 'request', 'crash', 'restart'])

function defaultDescribe(e: TraceEventLike): string {
  const at = e.t === undefined ? '' : ` at ${e.t}ms`
  const type = (v: unknown) =>
    v !== null && typeof v === 'object' && typeof (v as { type?: unknown }).type === 'string'
      ? ` ${(v as { type: string }).type}`
      : ''
  switch (e.type) {
    case 'send':
      return `send #${e.id}${type(e.msg)} to ${String(e.to)}${at}`
    case 'deliver':
      return `receive #${e.id} from ${String(e.from)}${at}`
    case 'emit':
      return `emit ${JSON.stringify(e.event)}${at}`
    case 'request':
      return `request ${JSON.stringify(e.req)}${at}`
    default:
      return `${e.type}${at}`
  }
}

/**
 * Assigns vector clocks to the events of a trace: each send, delivery and other included event
 * ticks its process; a delivery first merges the timestamp of its send (matched by message id).
 * The trace itself is the execution, so the protocol needs no clocks of its own.
 */
export function traceVectorClocks(
  trace: Iterable<TraceEventLike>,
  options: TraceClockOptions = {},
): TracedEvent[] {
  const include = options.include ?? ((e: TraceEventLike) => DEFAULT_TYPES.has(e.type))
  const describe = options.describe ?? defaultDescribe
  const clocks = new Map<NodeId, SparseVectorClock>()
  const sent = new Map<number, SparseVectorClock>()
  const out: TracedEvent[] = []
  const clockOf = (id: NodeId) => {
    let c = clocks.get(id)
    if (!c) {
      c = new SparseVectorClock(id)
      clocks.set(id, c)
    }
    return c
  }
  for (const e of trace) {
    if (!include(e)) continue
    let host: NodeId | undefined
    let clock: SparseVectorClock
    if (e.type === 'send' && e.from !== undefined) {
      host = e.from
      clock = clockOf(host).tick()
      if (e.id !== undefined) sent.set(e.id, clock.snapshot())
    } else if (e.type === 'deliver' && e.to !== undefined) {
      host = e.to
      clock = clockOf(host)
      const send = e.id === undefined ? undefined : sent.get(e.id)
      if (send) clock.merge(send)
      clock.tick()
    } else if (e.node !== undefined) {
      host = e.node
      clock = clockOf(host).tick()
    } else {
      continue
    }
    out.push({ host, clock: clock.snapshot(), event: describe(e), source: e })
  }
  return out
}

/** A trace as a ShiViz log: `traceVectorClocks` then `toShiVizLog`. */
export function traceToShiViz(
  trace: Iterable<TraceEventLike>,
  options: TraceClockOptions & ShiVizOptions = {},
): string {
  return toShiVizLog(traceVectorClocks(trace, options), options)
}
