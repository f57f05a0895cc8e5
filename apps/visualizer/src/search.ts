import { markLabel } from './annotations.js'
import type { VizEvent } from './model.js'

/**
 * Event search, as ShiViz's search bar: a query is words separated by spaces, and an event
 * matches when every word does. A plain word matches when it occurs in the event's text (case
 * ignored): its kind, label, message type, process, peer, protocol, and every `key=value` of its
 * trace entry (nested payloads included, times left out). `field=value` matches when the event
 * has that field with exactly that value: `type=acquired`, `node=n2` (the process it happens
 * at), `msg=probe`, `token=3`.
 */

/** One word of a query: a plain word, or `field=value`. */
export interface Term {
  field?: string
  value: string
}

/** Entry keys left out of the text: times would make every number match. */
const SKIPPED = new Set(['t', 'sentAt', 'vc', 'clock', 'vector', 'lamport'])
const MAX_DEPTH = 6

export function parseQuery(query: string): Term[] {
  return query
    .trim()
    .split(/\s+/)
    .filter((w) => w.length > 0)
    .map((w) => {
      const eq = w.indexOf('=')
      if (eq > 0 && eq < w.length - 1)
        return { field: w.slice(0, eq).toLowerCase(), value: w.slice(eq + 1).toLowerCase() }
      return { value: w.toLowerCase() }
    })
}

/** Every searchable field of an event, lower case: several values per key (`type`: entry and payload). */
export function eventFields(e: VizEvent): Map<string, string[]> {
  const fields = new Map<string, string[]>()
  const add = (key: string, value: unknown) => {
    if (value === undefined || value === null) return
    const k = key.toLowerCase()
    const list = fields.get(k) ?? []
    list.push(String(value).toLowerCase())
    fields.set(k, list)
  }
  const walk = (value: unknown, key: string, depth: number) => {
    if (depth > MAX_DEPTH || SKIPPED.has(key)) return
    if (Array.isArray(value)) for (const v of value) walk(v, key, depth + 1)
    else if (value !== null && typeof value === 'object')
      for (const [k, v] of Object.entries(value)) walk(v, k, depth + 1)
    else add(key, value)
  }
  walk(e.raw, '', 0)
  fields.delete('')
  add('kind', e.kind)
  add('type', e.kind)
  // `node=` is where the event happens; a node named in the entry is `entry.node=` (and plain text).
  for (const key of ['node', 'process']) {
    const named = (fields.get(key) ?? []).filter((v) => v !== e.process.toLowerCase())
    if (named.length > 0) fields.set(`entry.${key}`, named)
  }
  fields.set('node', [e.process.toLowerCase()])
  fields.set('process', [e.process.toLowerCase()])
  add('peer', e.peer)
  add('proto', e.proto)
  add('msg', e.messageType)
  add('type', e.messageType)
  add('event', e.id)
  if (e.kind === 'send' || e.kind === 'deliver') {
    add('from', e.kind === 'send' ? e.process : e.peer)
    add('to', e.kind === 'send' ? e.peer : e.process)
  }
  return fields
}

/** The text plain words are looked up in. */
export function eventText(e: VizEvent, fields = eventFields(e)): string {
  const parts = [e.label, markLabel(e) ?? '']
  for (const [k, values] of fields) for (const v of values) parts.push(`${k}=${v}`)
  return parts.join(' ').toLowerCase()
}

export function termMatches(term: Term, fields: Map<string, string[]>, text: string): boolean {
  if (term.field === undefined) return text.includes(term.value)
  return (fields.get(term.field) ?? []).includes(term.value)
}

/** The events (in the order given) that match every word of `query`; none for an empty query. */
export function searchEvents(events: readonly VizEvent[], query: string): VizEvent[] {
  const terms = parseQuery(query)
  if (terms.length === 0) return []
  return events.filter((e) => {
    const fields = eventFields(e)
    const text = eventText(e, fields)
    return terms.every((t) => termMatches(t, fields, text))
  })
}

/** The match after (`step` 1) or before (-1) `current`, wrapping around; 0 to start. */
export function nextMatch(count: number, current: number | undefined, step: 1 | -1): number {
  if (count === 0) return -1
  if (current === undefined || current < 0) return step === 1 ? 0 : count - 1
  return (((current + step) % count) + count) % count
}
