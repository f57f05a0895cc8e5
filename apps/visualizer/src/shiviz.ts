import { assignLamport } from './causality.js'
import {
  type Diagram,
  InputError,
  type ProcessId,
  type TimelineItem,
  type VizEvent,
  type VizMessage,
} from './model.js'

/** The GoVector log format, ShiViz's default parser (what `toShiVizLog` of @sd/clocks writes). */
export const GOVECTOR_REGEX = '(?<host>\\S*) (?<clock>{.*})\\n(?<event>.*)'

export interface ShiVizLogEntry {
  /** Its place in the log, from 0: `data-event`. */
  index: number
  host: ProcessId
  clock: Record<string, number>
  text: string
}

export interface ShiVizLog {
  entries: ShiVizLogEntry[]
  /** Hosts in order of their first event. */
  hosts: ProcessId[]
  regex: string
  /** How many executions the log holds (a delimiter splits them); the first is read. */
  executions: number
}

const HOST_LINE = /^\S+ \{.*\}\s*$/

/** A GoVector log: a `host {"host":1, ...}` line first, or after ShiViz's two header lines. */
export function looksLikeShiViz(text: string): boolean {
  const lines = text.replace(/\r\n?/g, '\n').split('\n')
  const first = lines.findIndex((l) => l.trim() !== '')
  if (first < 0) return false
  if (HOST_LINE.test(lines[first]!)) return true
  // A header: the parser regex, then the delimiter line, then host lines.
  return /\(\?<host>/.test(lines[first]!) && lines.slice(first + 1).some((l) => HOST_LINE.test(l))
}

/**
 * Reads a ShiViz log: either plain GoVector lines, or ShiViz's upload format (first line the
 * parser regex with named groups `host`, `clock` and `event`, second line the executions
 * delimiter, possibly empty). Checks what ShiViz checks: each host's own entry counts its events
 * 1, 2, 3..., and every other entry names a host with at least that many events.
 */
export function parseShiVizLog(input: string): ShiVizLog {
  const text = input.replace(/\r\n?/g, '\n')
  const lines = text.split('\n')
  let regex = GOVECTOR_REGEX
  let body = text
  let executions = 1
  const first = lines.findIndex((l) => l.trim() !== '')
  if (first >= 0 && !HOST_LINE.test(lines[first]!)) {
    regex = lines[first]!
    const delimiter = lines[first + 1] ?? ''
    let rest = lines.slice(first + 2)
    if (delimiter.trim() !== '') {
      let re: RegExp
      try {
        re = new RegExp(delimiter)
      } catch (e) {
        throw new InputError(`bad ShiViz delimiter ${JSON.stringify(delimiter)}: ${message(e)}`)
      }
      const parts: string[][] = [[]]
      for (const line of rest) {
        if (re.test(line)) parts.push([])
        else parts[parts.length - 1]!.push(line)
      }
      const nonEmpty = parts.filter((p) => p.some((l) => l.trim() !== ''))
      executions = Math.max(1, nonEmpty.length)
      rest = nonEmpty[0] ?? []
    }
    body = rest.join('\n')
  }
  let re: RegExp
  try {
    re = new RegExp(regex, 'g')
  } catch (e) {
    throw new InputError(`bad ShiViz parser regex ${JSON.stringify(regex)}: ${message(e)}`)
  }
  if (!regex.includes('(?<host>') || !regex.includes('(?<clock>'))
    throw new InputError('the ShiViz parser regex needs the named groups host and clock')

  const entries: ShiVizLogEntry[] = []
  const counts = new Map<ProcessId, number>()
  const hosts: ProcessId[] = []
  for (let m = re.exec(body); m !== null; m = re.exec(body)) {
    if (m[0] === '') {
      re.lastIndex++
      continue
    }
    const host = m.groups?.host ?? ''
    const n = entries.length + 1
    if (host === '') throw new InputError(`log event ${n} has no host`)
    let clock: Record<string, number>
    try {
      clock = JSON.parse(m.groups?.clock ?? '')
    } catch (e) {
      throw new InputError(`log event ${n} (host ${host}): its clock is not JSON: ${message(e)}`)
    }
    if (clock === null || typeof clock !== 'object' || Array.isArray(clock))
      throw new InputError(`log event ${n} (host ${host}): its clock is not an object`)
    for (const [k, v] of Object.entries(clock)) {
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0)
        throw new InputError(`log event ${n} (host ${host}): clock entry ${k} is not a count`)
    }
    const expected = (counts.get(host) ?? 0) + 1
    if (clock[host] !== expected)
      throw new InputError(
        `log event ${n}: host ${host}'s own clock entry is ${clock[host] ?? 'missing'}, expected ${expected} (it counts the host's events 1, 2, 3...)`,
      )
    if (!counts.has(host)) hosts.push(host)
    counts.set(host, expected)
    entries.push({ index: entries.length, host, clock, text: m.groups?.event ?? '' })
  }
  if (entries.length === 0) throw new InputError('no event found in the ShiViz log')
  for (const e of entries) {
    for (const [k, v] of Object.entries(e.clock)) {
      if (v === 0 || k === e.host) continue
      const count = counts.get(k)
      if (count === undefined || v > count)
        throw new InputError(
          `log event ${e.index + 1} (host ${e.host}) has ${JSON.stringify(k)}: ${v}, but ${JSON.stringify(k)} logs ${count ?? 0} event(s)`,
        )
    }
  }
  return { entries, hosts, regex, executions }
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e)
}

/**
 * A ShiViz log as a diagram. The log has no messages, only vector timestamps: as ShiViz does,
 * an event whose clock moved forward for another host received a message from that host's event
 * with that count; candidates in the causal past of another candidate are dropped (they came
 * transitively). Events are drawn in a linear extension of causality (by the sum of the clock,
 * then log order), one step each.
 */
export function shivizToDiagram(text: string): Diagram {
  const log = parseShiVizLog(text)
  const processes = log.hosts
  const pIndex = new Map(processes.map((p, i) => [p, i]))
  const sum = (c: Record<string, number>) => Object.values(c).reduce((a, b) => a + b, 0)
  const order = [...log.entries].sort((a, b) => sum(a.clock) - sum(b.clock) || a.index - b.index)

  const byHostCount = new Map<string, VizEvent>()
  const events: VizEvent[] = []
  const timeline: TimelineItem[] = []
  const parents = new Map<VizEvent, VizEvent[]>()
  const messages: VizMessage[] = []
  const last = new Map<ProcessId, VizEvent>()

  for (const entry of order) {
    const vc = processes.map((p) => entry.clock[p] ?? 0)
    const seq = timeline.length
    const ev: VizEvent = {
      id: entry.index,
      seq,
      process: entry.host,
      t: seq + 1,
      kind: 'log',
      label: entry.text.length > 40 ? `${entry.text.slice(0, 39)}…` : entry.text,
      raw: { host: entry.host, clock: entry.clock, event: entry.text, line: entry.index + 1 },
      vc,
      lamport: 0,
      traceClocks: [],
    }
    const prev = last.get(entry.host)
    const candidates: VizEvent[] = []
    processes.forEach((k, i) => {
      if (k === entry.host) return
      const before = prev ? prev.vc[i]! : 0
      if (vc[i]! > before) {
        const source = byHostCount.get(`${k}\u0000${vc[i]}`)
        if (source) candidates.push(source)
      }
    })
    const direct = candidates.filter(
      (c) =>
        !candidates.some(
          (d) => d !== c && c.vc[pIndex.get(c.process)!]! <= d.vc[pIndex.get(c.process)!]!,
        ),
    )
    parents.set(ev, direct)
    timeline.push({
      seq,
      t: ev.t,
      process: entry.host,
      after: direct.length > 0 ? Math.max(...direct.map((d) => d.seq)) : undefined,
    })
    for (const source of direct) {
      const mid = String(messages.length + 1)
      messages.push({
        id: mid,
        copy: 0,
        from: source.process,
        to: entry.host,
        send: source,
        deliver: ev,
        outcome: 'deliver',
        duplicated: false,
        type: 'message',
        seq,
      })
    }
    byHostCount.set(`${entry.host}\u0000${entry.clock[entry.host]}`, ev)
    last.set(entry.host, ev)
    events.push(ev)
  }
  assignLamport(events, processes, (e) => parents.get(e) ?? [])

  const title = [
    'ShiViz log',
    `${processes.length} hosts`,
    `${events.length} events`,
    `${messages.length} messages (from the vector clocks)`,
    log.executions > 1 ? `execution 1 of ${log.executions}` : undefined,
  ]
    .filter(Boolean)
    .join(' · ')
  return {
    format: 'shiviz',
    title,
    processes,
    events,
    messages,
    down: [],
    paused: [],
    partitions: [],
    losses: [],
    marks: [],
    duplicates: [],
    timeline,
    timeUnit: 'step',
    protos: [],
    messageTypes: messages.length > 0 ? ['message'] : [],
    skipped: 0,
    clocksFrom: 'input',
  }
}
