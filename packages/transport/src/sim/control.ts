import { InvalidArgumentError } from '../errors.js'
import type { NodeId } from '../ids.js'
import { byCodeUnit, sortSmall } from '../sort-small.js'
import type { EventQueue } from './event-queue.js'
import type { LinkTable } from './link-table.js'
import type { DeliverEvent, SimEvent } from './sim-node.js'
import type { SimWire } from './sim-wire.js'
import type { SimStats } from './stats.js'

/** An event a scheduler may pick next (see `SimNetwork.choices`). */
export interface Choice {
  key: string
  kind: 'deliver' | 'timer' | 'request' | 'action'
  /** The node whose state it touches; undefined for a planned action (it may touch anything). */
  owner: NodeId | undefined
  /** When virtual time would have it happen. */
  t: number
  /** A timer's key as the protocol set it. */
  label?: string
  from?: NodeId
  to?: NodeId
  msg?: unknown
  /** A message on a FIFO link: the oldest in flight on it, the only one it offers. */
  fifo?: boolean
}

/** What a scheduler's control (`choices`, `take`) reaches of the network. */
export interface ControlContext {
  readonly queue: EventQueue<SimEvent>
  readonly links: LinkTable
  readonly wire: SimWire
  readonly counters: SimStats
  /** Virtual time now. */
  readonly now: () => number
  /** Handles an event at virtual time `time`, as a run would. */
  readonly process: (event: SimEvent, time: number) => void
}

/** See `SimNetwork.choices`. */
export function choicesOf(ctx: ControlContext, timers: 'in-order' | 'any-order'): Choice[] {
  const live = ctx.queue.live()
  let earliest = Number.POSITIVE_INFINITY
  for (const e of live) if (e.kind === 'call') earliest = Math.min(earliest, e.t)
  const out: Choice[] = []
  for (const e of live) {
    if (e.kind === 'deliver') {
      const fifo = ctx.links.existing(e.from.id, e.to.id)?.config.fifo === true
      if (fifo && !oldestOnItsLink(live, e)) continue
      out.push({
        key: e.key,
        kind: 'deliver',
        owner: e.to.id,
        t: e.t,
        from: e.from.id,
        to: e.to.id,
        msg: e.msg,
        fifo,
      })
    } else if (timers === 'any-order' || e.t === earliest) {
      out.push({
        key: e.key,
        kind: e.timer ? 'timer' : e.owner === undefined ? 'action' : 'request',
        owner: e.owner,
        t: e.t,
        ...(e.timer ? { label: e.label } : {}),
      })
    }
  }
  return sortSmall(out, (a, b) => byCodeUnit(a.key, b.key))
}

/**
 * Whether `e`, on a FIFO link (the default), is the oldest message in flight on it: only that one
 * may arrive next. A scan, not a map of heads: a state has a few messages in flight, and this runs
 * state after state.
 */
function oldestOnItsLink(live: readonly SimEvent[], e: DeliverEvent): boolean {
  for (const other of live)
    if (other.kind === 'deliver' && other.link === e.link && other.seq < e.seq) return false
  return true
}

/** See `SimNetwork.take`. */
export function takeChoice(
  ctx: ControlContext,
  key: string,
  how: 'happen' | 'drop' | 'duplicate',
  when: 'now' | 'due',
): boolean {
  const event = ctx.queue.findLive((e) => e.key === key)
  if (event === undefined) return false
  if (how !== 'happen' && event.kind !== 'deliver')
    throw new InvalidArgumentError(
      `take(): only a message can be dropped or duplicated, not ${key}`,
    )
  event.cancelled = true
  if (event.kind === 'call') event.node?.timers.delete(event)
  if (event.kind === 'deliver' && how === 'drop') {
    ctx.counters.events++
    ctx.wire.drop(event.id, event.from, event.to, 'loss', event.proto)
    return true
  }
  if (event.kind === 'deliver' && how === 'duplicate') {
    ctx.wire.recordDuplicate(event)
    ctx.queue.push(event.copy(true))
  }
  const copy = event.kind === 'deliver' ? event.copy(false) : { ...event, cancelled: false }
  const early = event.kind === 'deliver' && when === 'now'
  const now = ctx.now()
  ctx.process(copy, early ? now : Math.max(now, event.t))
  return true
}
