/**
 * A golden trace: a run's events as text, one event per line, so that a change of a protocol's
 * behaviour shows as a readable diff of `testdata/<scenario>.seed<N>.trace` (CONTRIBUTING.md,
 * "Golden traces"). Pure: the test reads and writes the files.
 */
import { createHash } from 'node:crypto'
import type { NodeId, TraceEvent } from '@sd/transport'

/** What was run: the header line names it, so a file says how to reproduce it (`sd run`). */
export interface GoldenRun {
  scenario: string
  n: number
  seed: number
  crash: readonly NodeId[]
}

/**
 * Events stored at most, so no file grows past a reviewable size; the `end` line's hash still
 * covers every event, so a change after the cap fails too (with no line to show for it).
 */
export const MAX_STORED_EVENTS = 2000

/**
 * The file's text: a header, one line per event (at most `maxEvents`), and an `end` line with
 * the count and a hash of the exact events (times at full precision, every field), so that a
 * change the printed line rounds away (a time shifted by a microsecond) still fails.
 */
export function goldenText(
  run: GoldenRun,
  trace: readonly TraceEvent[],
  maxEvents = MAX_STORED_EVENTS,
): string {
  const crash = run.crash.length === 0 ? 'none' : run.crash.join(',')
  const lines = [
    `# ${run.scenario} n=${run.n} seed=${run.seed} crash=${crash}`,
    '# time(ms) event ...: one line per trace event; see CONTRIBUTING.md, "Golden traces"',
    ...traceToLines(trace.slice(0, maxEvents)),
  ]
  if (trace.length > maxEvents)
    lines.push(`# ${trace.length - maxEvents} more events not stored (cap ${maxEvents})`)
  lines.push(`end ${trace.length} events sha256:${traceHash(trace)}`)
  return `${lines.join('\n')}\n`
}

/** One line per event: `12.500 send #3 1->2 election {"term":2}`. */
export function traceToLines(trace: readonly TraceEvent[]): string[] {
  return trace.map((event) => `${time(event.t)} ${eventText(event)}`)
}

/** The first 16 hex digits of the SHA-256 of the events as canonical JSON. */
export function traceHash(trace: readonly TraceEvent[]): string {
  const hash = createHash('sha256')
  for (const event of trace) hash.update(`${canonicalJson(event)}\n`)
  return hash.digest('hex').slice(0, 16)
}

/** Fixed decimals (microseconds) so columns read alike; the `end` hash keeps the rest. */
function time(t: number): string {
  return Number.isFinite(t) ? t.toFixed(3) : String(t)
}

function eventText(e: TraceEvent): string {
  switch (e.type) {
    case 'send':
      return `send #${e.id} ${link(e)} ${payload(e.msg)}${e.resendOf === undefined ? '' : ` resend-of #${e.resendOf}`}`
    case 'deliver':
      return `deliver #${e.id} ${link(e)}`
    case 'drop':
      return `drop #${e.id} ${link(e)} ${e.reason}`
    case 'duplicate':
      return `duplicate #${e.id} ${link(e)}`
    case 'timer-set':
      return `timer-set ${e.node} ${e.key} ${number(e.ms)}ms`
    // A composed child's timer keys already name it (`sync/poll`).
    case 'timer-fire':
    case 'timer-cancel':
      return `${e.type} ${e.node} ${e.key}`
    case 'request':
      return `request ${e.node} ${payload(e.req)}${e.dropped ? ' dropped' : ''}`
    case 'emit':
      return `emit ${e.node} ${payload(e.event)}`
    case 'storage': {
      const deleted = e.deleted.length === 0 ? '' : ` deleted ${canonicalJson(e.deleted)}`
      return `storage ${e.node} ${e.outcome} ${canonicalJson(e.set)}${deleted}`
    }
    case 'start':
    case 'crash':
    case 'pause':
      return `${e.type} ${e.node}`
    case 'restart':
      return `restart ${e.node}${e.storageWiped ? ' storage-wiped' : ''}`
    case 'partition':
      return `partition ${e.groups.map((g) => `{${g.join(',')}}`).join('|')}`
    case 'heal':
      return 'heal'
    case 'loss':
      return `loss ${number(e.percent)}%`
    case 'mark':
      return `mark ${JSON.stringify(e.label)}`
    case 'clock': {
      const resolution = e.resolution === undefined ? '' : ` resolution=${number(e.resolution)}`
      return `clock ${e.node} offset=${number(e.offset)} drift=${number(e.drift)}${resolution}`
    }
    case 'clock-step':
      return `clock-step ${e.node} ${number(e.deltaMs)}ms`
    case 'resume':
      return `resume ${e.node} backlog=${e.backlog}`
    case 'error':
      return `error ${e.node} ${JSON.stringify(e.message)}`
    default: {
      // A kind of event added to the simulator later still gets a stable line.
      const added: { t: number; type: string } = e
      const { t: _t, type, ...rest } = added
      return `${type} ${canonicalJson(rest)}`
    }
  }
}

function link(e: { from: NodeId; to: NodeId }): string {
  return `${e.from}->${e.to}`
}

/** Keys that carry a composed child's message, request or event: `{ proto, msg }`. */
const ENVELOPE_BODIES = ['msg', 'req', 'event']

/**
 * A message, request or event: its `type` first, then the rest as JSON (`election {"term":2}`);
 * a composed child's `{ proto, msg }` envelope reads as `lock:request {...}`.
 */
function payload(value: unknown): string {
  const path: string[] = []
  let inner = value
  for (let depth = 0; depth < 16 && isEnvelope(inner); depth++) {
    path.push(inner.proto)
    inner = inner[Object.keys(inner).find((k) => k !== 'proto')!]
  }
  const prefix = path.length === 0 ? '' : `${path.join('/')}:`
  if (isRecord(inner) && typeof inner.type === 'string') {
    const { type, ...rest } = inner
    return `${prefix}${type}${Object.keys(rest).length === 0 ? '' : ` ${canonicalJson(rest)}`}`
  }
  return `${prefix}${canonicalJson(inner)}`
}

function isEnvelope(value: unknown): value is Record<string, unknown> & { proto: string } {
  if (!isRecord(value) || typeof value.proto !== 'string') return false
  const keys = Object.keys(value)
  return keys.length === 2 && keys.some((k) => ENVELOPE_BODIES.includes(k))
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** A number as JSON would write it, except that NaN and ±Infinity stay visible. */
function number(value: number): string {
  return Number.isFinite(value) ? JSON.stringify(value) : String(value)
}

/** Compact JSON with object keys sorted, so the same value always prints the same. */
export function canonicalJson(value: unknown): string {
  if (typeof value === 'number') return number(value)
  if (typeof value === 'bigint') return `${value}n`
  if (value === undefined) return 'undefined'
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  const entries = Object.entries(value)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`)
  return `{${entries.join(',')}}`
}
