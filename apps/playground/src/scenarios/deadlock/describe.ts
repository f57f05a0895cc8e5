/**
 * Words for the diagram of the deadlock scenarios: probes in the texts' notation, lock messages
 * with who and what, and the manager's events (waits, grants, aborts, deadlocks found).
 */
import { arrayOf, isNodeId, isRecord, isUnknown, shape, type TraceEvent } from '@sd/transport'
import { arrow, ms } from './run.js'

/**
 * A composed child's message or event, unwrapped: `{ proto, msg }` → msg; `{}` when it is no
 * object. The trace is plain JSON: every field below is checked where it is read.
 */
function inner(value: unknown, field: 'msg' | 'event' | 'req'): Record<string, unknown> {
  let v = value
  while (isRecord(v) && typeof v.proto === 'string' && isRecord(v[field])) v = v[field]
  return isRecord(v) ? v : {}
}

/** Something named by its `id` (a process reference), or a list of them. */
const withId = shape({ id: isUnknown })
const isPath = arrayOf(shape({ ref: withId }))
const isWaits = arrayOf(shape({ from: withId, to: withId }))
const isCycle = arrayOf(isNodeId)
const idOf = (v: unknown) => (isRecord(v) ? v.id : undefined)
const count = (v: unknown) => (Array.isArray(v) ? v.length : 0)

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
      const { path, index } = m
      if (!isPath(path)) return undefined
      const at = typeof index === 'number' ? path[index] : undefined
      return `${s(at?.ref.id)} of ${path.map((e) => s(e.ref.id)).join('→')}`
    }
    case 'lock-request':
      return `${s(idOf(m.proc))}: ${s(m.resource)}`
    case 'lock-grant':
    case 'lock-die':
    case 'lock-release':
    case 'wound':
      return `${s(m.process)}: ${s(m.resource)}`
    case 'lock-blocked':
      return `${s(m.process)} waits for ${s(idOf(m.holder))}`
    case 'abort':
      return s(m.process)
    case 'collect':
      return `round ${s(m.round)}`
    case 'local-waits': {
      const { waits } = m
      if (!isWaits(waits)) return undefined
      return waits.length === 0
        ? 'none'
        : waits.map((w) => `${s(w.from.id)}→${s(w.to.id)}`).join(' ')
    }
    case 'confirm':
      return `${count(m.ids)} wait(s)`
    case 'confirmed':
      return `${count(m.present)} still there`
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
      return isCycle(e.cycle) ? `DEADLOCK ${arrow(e.cycle)}: victim ${s(e.victim)}` : undefined
    case 'phantom':
      return isCycle(e.cycle) ? `phantom ${arrow(e.cycle)}: nobody aborted` : undefined
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
  const p = isRecord(r.process) ? r.process : {}
  const { startAt } = p
  return `run ${String(p.id)}${typeof startAt === 'number' && startAt ? ` in ${ms(startAt)} ms` : ''}`
}
