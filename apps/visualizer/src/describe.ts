import { formatVector } from './causality.js'
import type { Diagram, VizEvent, VizMessage } from './model.js'
import { fieldOf } from './trace-entries.js'
import { formatTime } from './units.js'

export interface Details {
  title: string
  rows: [string, string][]
}

const KIND_NAMES: Record<string, string> = {
  send: 'send',
  deliver: 'delivery',
  'timer-set': 'timer set',
  'timer-fire': 'timer fires',
  'timer-cancel': 'timer cancelled',
  request: 'local request',
  emit: 'event emitted by the protocol',
  storage: 'stable storage write',
  start: 'process starts',
  crash: 'crash (state lost)',
  restart: 'restart (fresh state)',
  clock: 'hardware clock set',
  'clock-step': 'wall clock stepped (the monotonic clock did not)',
  pause: 'paused (handlers held, clocks going on)',
  resume: 'resumed',
  error: 'the protocol threw an error',
  log: 'logged event',
}

function json(value: unknown, max = 360): string {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}

/** What hovering an event shows: what it is, when, where, and its timestamps. */
export function describeEvent(diagram: Diagram, e: VizEvent): Details {
  const rows: [string, string][] = []
  rows.push(['what', KIND_NAMES[e.kind] ?? e.kind])
  rows.push(['process', e.process])
  rows.push([diagram.timeUnit === 'ms' ? 'time' : 'order', formatTime(e.t, diagram.timeUnit)])
  if (e.messageId !== undefined) {
    const other = e.kind === 'send' ? `to ${e.peer}` : `from ${e.peer}`
    rows.push(['message', `#${e.messageId} ${e.messageType ?? ''} ${other}`.replace(/ +/g, ' ')])
  }
  const resendOf = e.kind === 'send' ? fieldOf(e.raw, 'resendOf') : undefined
  if (resendOf !== undefined)
    rows.push(['resend', `resend of #${String(resendOf)} (its transmission was dropped)`])
  if (e.proto) rows.push(['protocol', e.proto])
  rows.push([
    'vector clock',
    `${formatVector(e.vc)} over (${diagram.processes.join(', ')})${diagram.clocksFrom === 'messages' ? ', computed from the messages' : ', from the log'}`,
  ])
  rows.push([
    'Lamport clock',
    `${e.lamport}${diagram.clocksFrom === 'messages' ? ' (computed)' : ' (computed from the messages found)'}`,
  ])
  for (const c of e.traceClocks) {
    rows.push([
      'in the trace',
      `${c.path} = ${Array.isArray(c.value) ? formatVector(c.value) : c.value}`,
    ])
  }
  rows.push(['entry', json(e.raw)])
  return { title: e.label, rows }
}

const OUTCOME: Record<string, string> = {
  deliver: 'delivered',
  drop: 'dropped',
  'in-flight': 'still in flight at the end of the trace',
}

/** What hovering a message arrow shows. */
export function describeMessage(diagram: Diagram, m: VizMessage): Details {
  const unit = diagram.timeUnit
  const rows: [string, string][] = []
  rows.push(['message', `#${m.id} ${m.type}`])
  rows.push(['from → to', `${m.from} → ${m.to}`])
  if (m.resendOf !== undefined)
    rows.push(['resend', `resend of #${m.resendOf} (its transmission was dropped)`])
  if (m.send) rows.push(['sent', formatTime(m.send.t, unit)])
  let outcome = OUTCOME[m.outcome] ?? m.outcome
  if (m.deliver) outcome += ` at ${formatTime(m.deliver.t, unit)}`
  if (m.drop) outcome += ` at ${formatTime(m.drop.t, unit)}: ${m.drop.reason}`
  rows.push(['outcome', outcome])
  if (m.duplicated)
    rows.push(['duplicated', `the network sent it twice (this is copy ${m.copy + 1})`])
  if (m.proto) rows.push(['protocol', m.proto])
  const raw = m.send?.raw
  if (typeof raw === 'object' && raw !== null && 'msg' in raw) rows.push(['content', json(raw.msg)])
  return { title: `#${m.id} ${m.type} ${m.from} → ${m.to}`, rows }
}
