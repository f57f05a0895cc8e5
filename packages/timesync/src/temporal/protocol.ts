/**
 * Temporal-order delivery, the texts' third ordering beside causal and total: a broadcast carries
 * its sender's synchronized timestamp, and every member delivers in timestamp order once its own
 * clock has passed the timestamp plus a hold-back Δ.
 *
 * The guarantee. Let every two members' clocks be within π of each other (the precision: from
 * the synchronizer's bounds plus the drift since its last round), every message arrive within D,
 * and ρ bound the clocks' rate errors. Then with Δ >= (1 + ρ) D + π no message is late, so every
 * member delivers every message in (timestamp, sender, seq) order: the same sequence everywhere,
 * and a message sent more than π / (1 - ρ) before another (in real time) is delivered before it
 * by every member. A message that arrives when the member's clock is already past its
 * timestamp + Δ is late: it is delivered at once, marked `late`, outside that order (nothing is
 * dropped); members agree on the order of the messages that were on time at both.
 */
import {
  arrayOf,
  type Ctx,
  isNodeId,
  isNonNegInt,
  type NodeId,
  type Protocol,
  shape,
} from '@sd/transport'
import { DisciplinedClock, isDisciplinedClockSnapshot } from '../clock/disciplined.js'
import { checkSnapshot } from '../snapshot-check.js'
import type { TemporalEvent } from './events.js'
import { parseMessage, type TemporalMessage } from './messages.js'
import { resolveOptions, type TemporalOptions } from './options.js'

export type TemporalRequest<P = unknown> = { type: 'broadcast'; payload: P }

type TemporalCtx<P> = Ctx<TemporalMessage<P>, TemporalEvent<P>>

/** Smallest (ts, sender, seq) first. */
function before(a: Queued, b: Queued): boolean {
  if (a.msg.ts !== b.msg.ts) return a.msg.ts < b.msg.ts
  const fa = String(a.from)
  const fb = String(b.from)
  if (a.from !== b.from)
    return typeof a.from === 'number' && typeof b.from === 'number' ? a.from < b.from : fa < fb
  return a.msg.seq < b.msg.seq
}

interface Queued {
  from: NodeId
  msg: TemporalMessage
}

/** What `snapshot()` gives and `restore()` takes: the queue holds temporal messages. */
const SNAPSHOT_FIELDS = {
  seq: isNonNegInt,
  queue: arrayOf(
    shape({
      from: isNodeId,
      msg: (m: unknown): m is TemporalMessage => typeof parseMessage(m) !== 'string',
    }),
  ),
  clock: isDisciplinedClockSnapshot,
}

/** Temporal-order broadcast; share the synchronizer's clock through the factory's second argument. */
export function temporalOrder<P = unknown>(options: TemporalOptions) {
  const { holdBackMs } = resolveOptions(options)

  return (
    self: NodeId,
    clock = new DisciplinedClock(options.discipline),
  ): Protocol<TemporalMessage<P>, TemporalRequest<P>, TemporalEvent<P>> => {
    let seq = 0
    /** Waiting for their hold-back, sorted. */
    const queue: Queued[] = []

    /** The payload is the application's: a peer's is taken on trust as `P`, as it was sent. */
    const deliver = (queued: Queued, late: boolean, atMs: number, ctx: TemporalCtx<P>) => {
      const { from, msg } = queued
      ctx.emit({
        type: 'deliver',
        from,
        ts: msg.ts,
        seq: msg.seq,
        payload: msg.payload as P,
        late,
        atMs,
      })
    }

    const deliverDue = (ctx: TemporalCtx<P>) => {
      const now = clock.read(ctx.now())
      while (queue.length > 0 && queue[0]!.msg.ts + holdBackMs <= now)
        deliver(queue.shift()!, false, now, ctx)
      if (queue.length === 0) return ctx.cancelTimer('due')
      // Hardware ms, so a slewing clock may need one more wake-up: `deliverDue` checks again.
      ctx.setTimer('due', Math.max(queue[0]!.msg.ts + holdBackMs - now, 0.001))
    }

    const receive = (from: NodeId, msg: TemporalMessage, ctx: TemporalCtx<P>) => {
      const now = clock.read(ctx.now())
      const item: Queued = { from, msg }
      if (msg.ts + holdBackMs < now) return deliver(item, true, now, ctx)
      let i = queue.length
      while (i > 0 && before(item, queue[i - 1]!)) i--
      queue.splice(i, 0, item)
      deliverDue(ctx)
    }

    return {
      /** The node's state as plain data: the hold-back queue (kept sorted), its clock included. */
      snapshot() {
        return {
          seq,
          queue: queue.map(({ from, msg }) => ({ from, msg: { ...msg } })),
          clock: clock.snapshot(),
        }
      },
      /** Takes on what `snapshot()` gave (the queue in its order), the clock included. */
      restore(snapshot) {
        const s = checkSnapshot('temporal order', SNAPSHOT_FIELDS, snapshot)
        seq = s.seq
        queue.length = 0
        for (const { from, msg } of s.queue) queue.push({ from, msg: { ...msg } })
        clock.restore(s.clock)
      },
      onRequest(req, ctx) {
        if (req.type !== 'broadcast') return
        const msg: TemporalMessage<P> = {
          type: 'temporal',
          ts: clock.read(ctx.now()),
          seq: ++seq,
          payload: req.payload,
        }
        ctx.broadcast(msg)
        receive(self, msg, ctx)
      },
      onMessage(from, raw, ctx) {
        const msg = parseMessage(raw)
        if (typeof msg === 'string') return ctx.emit({ type: 'ignored', from, reason: msg })
        receive(from, msg, ctx)
      },
      onTimer(key, ctx) {
        if (key === 'due') deliverDue(ctx)
      },
    }
  }
}
