import type { TraceDocument } from '@sd/transport'
import { type EventKind, InputError, type TraceClock } from './model.js'
import { signedMs } from './units.js'

/**
 * What one entry of an sd trace says, read without trusting it: the document checked, the labels
 * of node events, the clocks an entry carries. `trace.ts` turns the entries into a diagram.
 */

/** A trace entry as read from JSON: checked field by field, never trusted. */
export type Entry = Record<string, unknown> & { t: number; type: string }

/** Checks the document's shape and each entry's `type` and `t`; the rest is checked where read. */
export function checkDocument(doc: unknown): { nodes: unknown[]; events: Entry[]; seed?: unknown } {
  if (doc === null || typeof doc !== 'object') throw new InputError('the trace is not an object')
  const d = doc as Partial<TraceDocument> & Record<string, unknown>
  if (!Array.isArray(d.events))
    throw new InputError(
      'no `events` array: this is not an sd trace (sd run <scenario> --trace FILE)',
    )
  d.events.forEach((e, i) => {
    const entry = e as unknown as Record<string, unknown>
    if (entry === null || typeof entry !== 'object' || typeof entry.type !== 'string')
      throw new InputError(`event ${i} has no string \`type\``)
    if (typeof entry.t !== 'number' || !Number.isFinite(entry.t))
      throw new InputError(`event ${i} (${entry.type}) has no finite time \`t\``)
  })
  return {
    nodes: Array.isArray(d.nodes) ? d.nodes : [],
    events: d.events as unknown as Entry[],
    seed: d.seed,
  }
}

/** The entries' indices in time order (stable: the simulator's order within one instant is kept). */
export function timeOrder(entries: readonly Entry[]): number[] {
  return entries.map((_, i) => i).sort((a, b) => entries[a]!.t - entries[b]!.t || a - b)
}

/** The entry's `proto`, if it is a string. */
export function protoOf(e: Entry): string | undefined {
  return typeof e.proto === 'string' ? e.proto : undefined
}

const MAX_ENVELOPES = 16

/** An emitted event or request without its composition envelopes (`{ proto, event }`). */
export function unwrap(value: unknown, field: 'event' | 'req' | 'msg'): unknown {
  let inner = value
  for (let depth = 0; depth < MAX_ENVELOPES; depth++) {
    if (inner === null || typeof inner !== 'object') return inner
    const o = inner as Record<string, unknown>
    if (typeof o.proto === 'string' && Object.hasOwn(o, field) && !('type' in o)) inner = o[field]
    else return inner
  }
  return inner
}

/** Field `key` of a value read from JSON, or undefined when the value is not an object. */
export function fieldOf(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? Reflect.get(value, key) : undefined
}

/** A value as short text: its `type` if it has one, else clipped JSON. */
export function shortText(value: unknown, max = 32): string {
  if (value !== null && typeof value === 'object') {
    if ('type' in value && typeof value.type === 'string') return value.type
  }
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value))
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}

const CLOCK_KEY = /^(clock|lamport|vector|local|time|timestamp|vc|lc|ts)$/i

/**
 * Clock values a trace entry carries itself: numbers or arrays of numbers under a clock-like key
 * (`lamport`, `vector`, `clock`, `local`, `time`, `timestamp`...), anywhere in its message, event
 * or request. The clocks scenarios put them there; the page shows them next to the computed ones.
 */
export function findTraceClocks(value: unknown, path: string, depth = 0): TraceClock[] {
  if (depth > 5 || value === null || typeof value !== 'object') return []
  const out: TraceClock[] = []
  for (const [key, v] of Object.entries(value)) {
    const at = Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`
    if (CLOCK_KEY.test(key) && isClockValue(v)) out.push({ path: at, value: v })
    else if (v !== null && typeof v === 'object' && !Array.isArray(v))
      out.push(...findTraceClocks(v, at, depth + 1))
  }
  return out
}

function isClockValue(v: unknown): v is number | number[] {
  return (
    (typeof v === 'number' && Number.isFinite(v)) ||
    (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'number'))
  )
}

/** The entry types that are an event on one node's line (`node` says which). */
export const NODE_KINDS = new Set<string>([
  'timer-set',
  'timer-fire',
  'timer-cancel',
  'request',
  'emit',
  'storage',
  'start',
  'crash',
  'restart',
  'pause',
  'resume',
  'clock',
  'clock-step',
  'error',
])

/** A node event's mark label. */
export function nodeLabel(kind: EventKind, e: Entry): string {
  switch (kind) {
    case 'timer-set':
      return `set ⏰ ${String(e.key)} (${String(e.ms)} ms)`
    case 'timer-fire':
      return `⏰ ${String(e.key)}`
    case 'timer-cancel':
      return `cancel ⏰ ${String(e.key)}`
    case 'request':
      return `▶ ${e.dropped ? '(dropped: down) ' : ''}${shortText(unwrap(e.req, 'req'))}`
    case 'emit':
      return `★ ${shortText(unwrap(e.event, 'event'))}`
    case 'storage': {
      const keys = [
        ...Object.keys((e.set as object | undefined) ?? {}),
        ...((e.deleted as string[] | undefined) ?? []).map((k) => `-${k}`),
      ]
      return `storage ${keys.join(', ')}${e.outcome === 'discarded' ? ' (discarded)' : ''}`
    }
    case 'start':
      return 'start'
    case 'crash':
      return '💥 crash'
    case 'restart':
      return `↻ restart${e.storageWiped ? ' (storage wiped)' : ''}`
    case 'pause':
      return '⏸ paused'
    case 'resume':
      return `⏵ resumed${typeof e.backlog === 'number' ? ` (${e.backlog} waiting)` : ''}`
    case 'clock':
      return `clock offset ${String(e.offset)} ms, drift ${String(e.drift)}`
    case 'clock-step':
      return `wall clock ${typeof e.deltaMs === 'number' ? signedMs(e.deltaMs) : 'stepped'}`
    case 'error':
      return `‼ ${String(e.message)}`
    default:
      return kind
  }
}
