import type { TraceDocument } from '@sd/transport'
import { messageType } from '@sd/transport'
import { assignClocks } from './causality.js'
import {
  type Diagram,
  type DownBand,
  type DuplicateMark,
  type EventKind,
  InputError,
  type LossBand,
  type MarkLine,
  type PartitionBand,
  type ProcessId,
  type TimelineItem,
  type TraceClock,
  type VizEvent,
  type VizMessage,
} from './model.js'

/** The type of a message for filtering, as the simulator counts it. */
export { messageType }

/** A trace entry as read from JSON: checked field by field, never trusted. */
type Entry = Record<string, unknown> & { t: number; type: string }

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

/** A value as short text: its `type` if it has one, else clipped JSON. */
export function shortText(value: unknown, max = 32): string {
  if (value !== null && typeof value === 'object') {
    const type = (value as { type?: unknown }).type
    if (typeof type === 'string') return type
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

function id(value: unknown): ProcessId {
  return String(value)
}

function checkDocument(doc: unknown): { nodes: unknown[]; events: Entry[]; seed?: unknown } {
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

/**
 * An sd trace (`TraceDocument`, as `sd run --trace` and the cluster app write it) as a diagram.
 * Entries are taken in time order (stable: the simulator's order within one instant is kept),
 * so traces merged from real processes draw too. Causality comes from the messages (see
 * `assignClocks`).
 */
export function traceToDiagram(doc: unknown): Diagram {
  const { nodes, events: raw, seed } = checkDocument(doc)
  const order = raw.map((_, i) => i).sort((a, b) => raw[a]!.t - raw[b]!.t || a - b)

  const processes: ProcessId[] = []
  const known = new Set<ProcessId>()
  const addProcess = (p: unknown) => {
    const pid = id(p)
    if (!known.has(pid)) {
      known.add(pid)
      processes.push(pid)
    }
    return pid
  }
  for (const n of nodes) addProcess(n)

  const events: VizEvent[] = []
  const timeline: TimelineItem[] = []
  const sends = new Map<
    string,
    { send: VizEvent; copies: number; msg: unknown; proto?: string; resendOf?: string }
  >()
  const outcomes: VizMessage[] = []
  const down: DownBand[] = []
  const paused: DownBand[] = []
  const partitions: PartitionBand[] = []
  const losses: LossBand[] = []
  const marks: MarkLine[] = []
  const duplicates: DuplicateMark[] = []
  const protos = new Set<string>()
  const types = new Set<string>()
  const openDown = new Map<ProcessId, DownBand>()
  const openPause = new Map<ProcessId, DownBand>()
  let openPartition: PartitionBand | undefined
  let openLoss: LossBand | undefined
  let skipped = 0

  const item = (t: number, process?: ProcessId, after?: number): number => {
    const seq = timeline.length
    timeline.push({ seq, t, process, after })
    return seq
  }
  const event = (
    index: number,
    e: Entry,
    process: ProcessId,
    kind: EventKind,
    label: string,
    extra: Partial<VizEvent> = {},
    after?: number,
  ): VizEvent => {
    const proto = typeof e.proto === 'string' ? e.proto : undefined
    if (proto) protos.add(proto)
    const payload = e.msg ?? e.event ?? e.req ?? (kind === 'storage' ? e.set : undefined)
    const v: VizEvent = {
      id: index,
      seq: item(e.t, process, after),
      process,
      t: e.t,
      kind,
      label,
      proto,
      raw: e,
      vc: [],
      lamport: 0,
      traceClocks: findTraceClocks(payload, kind === 'send' ? 'msg' : kind),
      ...extra,
    }
    events.push(v)
    return v
  }

  for (const index of order) {
    const e = raw[index]!
    const proto = typeof e.proto === 'string' ? e.proto : undefined
    switch (e.type) {
      case 'send': {
        const from = addProcess(e.from)
        const to = addProcess(e.to)
        const mid = id(e.id)
        const type = messageType(e.msg)
        types.add(type)
        // The link's retransmission of an earlier message (the cluster's links write `resendOf`).
        const resendOf =
          typeof e.resendOf === 'number' || typeof e.resendOf === 'string'
            ? id(e.resendOf)
            : undefined
        const label = `→${to} #${mid} ${type}${resendOf === undefined ? '' : ` ↻#${resendOf}`}`
        const send = event(index, e, from, 'send', label, {
          messageId: mid,
          messageType: type,
          peer: to,
        })
        sends.set(mid, { send, copies: 1, msg: e.msg, proto, resendOf })
        break
      }
      case 'deliver': {
        const from = addProcess(e.from)
        const to = addProcess(e.to)
        const mid = id(e.id)
        const sent = sends.get(mid)
        const type = sent ? messageType(sent.msg) : 'unknown'
        // A recorder may put `proto` on the send only (the cluster app does): the delivery's is the send's.
        const msgProto = proto ?? sent?.proto
        const deliver = event(
          index,
          e,
          to,
          'deliver',
          `←${from} #${mid} ${type}`,
          { messageId: mid, messageType: type, peer: from, proto: msgProto },
          sent?.send.seq,
        )
        if (sent) deliver.traceClocks = findTraceClocks(sent.msg, 'msg')
        outcomes.push({
          id: mid,
          copy: 0,
          from,
          to,
          send: sent?.send,
          deliver,
          outcome: 'deliver',
          duplicated: false,
          type,
          proto: msgProto,
          seq: deliver.seq,
        })
        break
      }
      case 'drop': {
        const from = addProcess(e.from)
        const to = addProcess(e.to)
        const mid = id(e.id)
        const sent = sends.get(mid)
        const reason = String(e.reason ?? 'dropped')
        // Dropped on arrival (the receiver was down or closed): the cross sits on the receiver's
        // line. Dropped when sent (loss, partition, sender down): between the lines.
        const atReceiver = reason === 'receiver-crashed' || reason === 'receiver-closed'
        const seq = item(e.t, atReceiver ? to : from, sent?.send.seq)
        outcomes.push({
          id: mid,
          copy: 0,
          from,
          to,
          send: sent?.send,
          outcome: 'drop',
          drop: { reason, t: e.t, seq, id: index, atReceiver },
          duplicated: false,
          type: sent ? messageType(sent.msg) : 'unknown',
          proto: proto ?? sent?.proto,
          seq,
        })
        if (proto) protos.add(proto)
        break
      }
      case 'duplicate': {
        const from = addProcess(e.from)
        const to = addProcess(e.to)
        const mid = id(e.id)
        const sent = sends.get(mid)
        if (sent) sent.copies++
        duplicates.push({ id: index, messageId: mid, from, to, t: e.t, seq: item(e.t, from) })
        break
      }
      case 'partition': {
        const groups = Array.isArray(e.groups)
          ? (e.groups as unknown[]).map((g) => (Array.isArray(g) ? g.map(addProcess) : []))
          : []
        if (openPartition) {
          openPartition.to = e.t
          openPartition.toSeq = timeline.length
        }
        openPartition = { groups, from: e.t, fromSeq: item(e.t), id: index }
        partitions.push(openPartition)
        break
      }
      case 'loss': {
        // `percent` of the packets dropped from now on; 0 ends it, another percent replaces it.
        const percent = typeof e.percent === 'number' && Number.isFinite(e.percent) ? e.percent : 0
        const seq = item(e.t)
        if (openLoss) {
          openLoss.to = e.t
          openLoss.toSeq = seq
          openLoss.endId = index
          openLoss = undefined
        }
        if (percent > 0) {
          openLoss = { percent, from: e.t, fromSeq: seq, id: index }
          losses.push(openLoss)
        }
        break
      }
      case 'mark': {
        const label = typeof e.label === 'string' ? e.label : shortText(e.label ?? 'mark')
        marks.push({ id: index, t: e.t, seq: item(e.t), label })
        break
      }
      case 'heal': {
        const seq = item(e.t)
        if (openPartition) {
          openPartition.to = e.t
          openPartition.toSeq = seq
          openPartition.healId = index
          openPartition = undefined
        }
        break
      }
      default: {
        if (e.node === undefined || !NODE_KINDS.has(e.type)) {
          skipped++
          break
        }
        const node = addProcess(e.node)
        const kind = e.type as EventKind
        const ev = event(index, e, node, kind, nodeLabel(kind, e))
        const close = (open: Map<ProcessId, DownBand>) => {
          const band = open.get(node)
          if (band) {
            band.to = e.t
            band.toSeq = ev.seq
            open.delete(node)
          }
        }
        const begin = (open: Map<ProcessId, DownBand>, list: DownBand[]) => {
          if (open.has(node)) return
          const band: DownBand = { process: node, from: e.t, fromSeq: ev.seq }
          open.set(node, band)
          list.push(band)
        }
        if (kind === 'crash') {
          // A crash ends a pause: the process is down, not paused, until it restarts.
          close(openPause)
          begin(openDown, down)
        } else if (kind === 'restart') close(openDown)
        else if (kind === 'pause') begin(openPause, paused)
        else if (kind === 'resume') close(openPause)
      }
    }
  }

  // Arrows: one per delivery or drop; a copy never accounted for is still in flight at the end.
  const messages: VizMessage[] = []
  const seen = new Map<string, number>()
  for (const m of outcomes) {
    const copy = seen.get(m.id) ?? 0
    seen.set(m.id, copy + 1)
    const sent = sends.get(m.id)
    messages.push({
      ...m,
      copy,
      duplicated: (sent?.copies ?? 1) > 1,
      ...(sent?.resendOf === undefined ? {} : { resendOf: sent.resendOf }),
    })
  }
  for (const [mid, sent] of sends) {
    for (let copy = seen.get(mid) ?? 0; copy < sent.copies; copy++) {
      const { send } = sent
      messages.push({
        id: mid,
        copy,
        from: send.process,
        to: send.peer!,
        send,
        outcome: 'in-flight',
        duplicated: sent.copies > 1,
        ...(sent.resendOf === undefined ? {} : { resendOf: sent.resendOf }),
        type: send.messageType!,
        proto: sent.proto,
        seq: send.seq,
      })
    }
  }
  messages.sort((a, b) => a.seq - b.seq || a.copy - b.copy)

  assignClocks(events, processes, (d) => (d.messageId ? sends.get(d.messageId)?.send : undefined))

  const end = raw.reduce((most, e) => Math.max(most, e.t), raw.length === 0 ? 0 : -Infinity)
  const title = [
    seed === undefined ? undefined : `seed ${String(seed)}`,
    `${processes.length} processes`,
    `${events.length} events`,
    `${messages.length} message arrows`,
    `over ${formatTime(end, 'ms')}`,
  ]
    .filter(Boolean)
    .join(' · ')

  return {
    format: 'sd-trace',
    title,
    processes,
    events,
    messages,
    down,
    paused,
    partitions,
    losses,
    marks,
    duplicates,
    timeline,
    timeUnit: 'ms',
    protos: [...protos].sort(),
    messageTypes: [...new Set([...types, ...messages.map((m) => m.type)])].sort(),
    skipped,
    clocksFrom: 'messages',
  }
}

const NODE_KINDS = new Set<string>([
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

function nodeLabel(kind: EventKind, e: Entry): string {
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

/** `+500 ms`, `-1.5 ms`: a clock step. */
export function signedMs(ms: number): string {
  return `${ms >= 0 ? '+' : ''}${Number(ms.toFixed(3))} ms`
}

/** `37.469 ms`, or `log position 12` for logs without time. */
export function formatTime(t: number, unit: 'ms' | 'step'): string {
  if (unit === 'step') return `log position ${t}`
  return `${Number.isInteger(t) ? t : t.toFixed(3)} ms`
}
