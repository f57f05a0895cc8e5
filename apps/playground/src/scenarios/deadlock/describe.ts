/**
 * Words for the diagram of the deadlock scenarios: probes in the texts' notation, lock messages
 * with who and what, and the manager's events (waits, grants, aborts, deadlocks found).
 */
import type { ProcessId } from '@sd/deadlock'
import type { TraceEvent } from '@sd/transport'
import { arrow, ms } from './run.js'

/** A composed child's message or event, unwrapped: `{ proto, msg }` → msg. */
function inner(value: unknown, field: 'msg' | 'event' | 'req'): Record<string, unknown> {
  let v = value as Record<string, unknown>
  while (typeof v?.proto === 'string' && typeof v[field] === 'object' && v[field] !== null)
    v = v[field] as Record<string, unknown>
  return v ?? {}
}

/**
 * Words for the diagram. Messages: a probe as (initiator, sender, receiver), the texts' notation,
 * so the cell reads `probe (1, 1, 2)`; the other messages with who and what. Events: waits, grants,
 * aborts, and the deadlocks found. Deliveries carry no message in the trace: they are looked up
 * by id among the sends of `trace`.
 */
export function describeDeadlock(
  trace: readonly TraceEvent[],
): (entry: TraceEvent) => string | undefined {
  const sent = new Map<number, unknown>()
  for (const e of trace) if (e.type === 'send') sent.set(e.id, e.msg)
  return (entry) => {
    if (entry.type === 'send' || entry.type === 'deliver')
      return describeMessage(inner(sent.get(entry.id), 'msg'))
    if (entry.type === 'emit') return describeEvent(inner(entry.event, 'event'))
    if (entry.type === 'request') return describeRequest(inner(entry.req, 'req'))
    return undefined
  }
}

function describeMessage(m: Record<string, unknown>): string | undefined {
  const s = (v: unknown) => String(v)
  switch (m.type) {
    case 'probe':
      return `(${s(m.initiator)}, ${s(m.sender)}, ${s(m.receiver)})`
    case 'verify': {
      const path = m.path as Array<{ ref: { id: ProcessId } }>
      return `${s(path[m.index as number]?.ref.id)} of ${path.map((e) => s(e.ref.id)).join('→')}`
    }
    case 'lock-request':
      return `${s((m.proc as { id: ProcessId }).id)}: ${s(m.resource)}`
    case 'lock-grant':
    case 'lock-die':
    case 'lock-release':
    case 'wound':
      return `${s(m.process)}: ${s(m.resource)}`
    case 'lock-blocked':
      return `${s(m.process)} waits for ${s((m.holder as { id: ProcessId }).id)}`
    case 'abort':
      return s(m.process)
    case 'collect':
      return `round ${s(m.round)}`
    case 'local-waits': {
      const waits = m.waits as Array<{ from: { id: ProcessId }; to: { id: ProcessId } }>
      return waits.length === 0
        ? 'none'
        : waits.map((w) => `${s(w.from.id)}→${s(w.to.id)}`).join(' ')
    }
    case 'confirm':
      return `${(m.ids as string[]).length} wait(s)`
    case 'confirmed':
      return `${(m.present as string[]).length} still there`
    default:
      return undefined
  }
}

function describeEvent(e: Record<string, unknown>): string | undefined {
  const s = (v: unknown) => String(v)
  switch (e.type) {
    case 'waits-for':
      return `${s(e.from)} waits for ${s(e.to)} (${s(e.resource)})`
    case 'wait-ended':
      return `${s(e.from)} stops waiting for ${s(e.to)} (${s(e.why)})`
    case 'deadlock':
      return `DEADLOCK ${arrow(e.cycle as ProcessId[])}: victim ${s(e.victim)}`
    case 'phantom':
      return `phantom ${arrow(e.cycle as ProcessId[])}: nobody aborted`
    case 'started':
      return `${s(e.process)} starts (timestamp ${s(e.timestamp)})`
    case 'granted':
      return `${s(e.process)} holds ${s(e.resource)}`
    case 'released':
      return `${s(e.process)} releases ${s(e.resource)}`
    case 'finished':
      return `${s(e.process)} finishes`
    case 'aborted':
      return `${s(e.process)} aborted (${s(e.reason)})`
    default:
      return undefined
  }
}

function describeRequest(r: Record<string, unknown>): string | undefined {
  if (r.type === 'detect') return 'detect now'
  if (r.type !== 'run') return undefined
  const p = r.process as { id: ProcessId; startAt?: number }
  return `run ${String(p.id)}${p.startAt ? ` in ${ms(p.startAt)} ms` : ''}`
}
