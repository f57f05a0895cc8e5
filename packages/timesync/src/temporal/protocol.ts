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
import { type Ctx, InvalidArgumentError, type NodeId, type Protocol } from '@sd/transport'
import { DisciplinedClock, type DisciplinePolicy } from '../clock/disciplined.js'
import { type IgnoredEvent, parseTemporalMessage } from '../wire.js'

export interface TemporalMsg<P = unknown> {
  type: 'temporal'
  /** The sender's synchronized clock when it broadcast. */
  ts: number
  seq: number
  payload: P
}

export type TemporalRequest<P = unknown> = { type: 'broadcast'; payload: P }

export interface TemporalDeliverEvent<P = unknown> {
  type: 'deliver'
  from: NodeId
  ts: number
  seq: number
  payload: P
  /** Arrived after its hold-back: delivered at once, outside the timestamp order. */
  late: boolean
  /** The member's clock at delivery. */
  atMs: number
}

export type TemporalEvent<P = unknown> = TemporalDeliverEvent<P> | IgnoredEvent

export interface TemporalOptions {
  /** Δ: how long after its timestamp a message is delivered (ms). */
  holdBackMs: number
  discipline?: DisciplinePolicy
}

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
  msg: TemporalMsg
}

/** Temporal-order broadcast; share the synchronizer's clock through the factory's second argument. */
export function temporalOrder<P = unknown>(options: TemporalOptions) {
  const { holdBackMs } = options
  if (!(Number.isFinite(holdBackMs) && holdBackMs >= 0))
    throw new InvalidArgumentError(`holdBackMs must be >= 0, got ${holdBackMs}`)

  return (
    self: NodeId,
    clock = new DisciplinedClock(options.discipline),
  ): Protocol<TemporalMsg<P>, TemporalRequest<P>, TemporalEvent<P>> => {
    let seq = 0
    /** Waiting for their hold-back, sorted. */
    const queue: Queued[] = []

    const deliverDue = (ctx: Ctx<TemporalMsg<P>, TemporalEvent<P>>) => {
      const now = clock.read(ctx.now())
      while (queue.length > 0 && queue[0]!.msg.ts + holdBackMs <= now) {
        const { from, msg } = queue.shift()!
        ctx.emit({
          type: 'deliver',
          from,
          ts: msg.ts,
          seq: msg.seq,
          payload: msg.payload as P,
          late: false,
          atMs: now,
        })
      }
      if (queue.length === 0) return ctx.cancelTimer('due')
      // Hardware ms, so a slewing clock may need one more wake-up: `deliverDue` checks again.
      ctx.setTimer('due', Math.max(queue[0]!.msg.ts + holdBackMs - now, 0.001))
    }

    const receive = (
      from: NodeId,
      msg: TemporalMsg<P>,
      ctx: Ctx<TemporalMsg<P>, TemporalEvent<P>>,
    ) => {
      const now = clock.read(ctx.now())
      if (msg.ts + holdBackMs < now) {
        ctx.emit({
          type: 'deliver',
          from,
          ts: msg.ts,
          seq: msg.seq,
          payload: msg.payload,
          late: true,
          atMs: now,
        })
        return
      }
      const item: Queued = { from, msg }
      let i = queue.length
      while (i > 0 && before(item, queue[i - 1]!)) i--
      queue.splice(i, 0, item)
      deliverDue(ctx)
    }

    return {
      onRequest(req, ctx) {
        if (req.type !== 'broadcast') return
        const msg: TemporalMsg<P> = {
          type: 'temporal',
          ts: clock.read(ctx.now()),
          seq: ++seq,
          payload: req.payload,
        }
        ctx.broadcast(msg)
        receive(self, msg, ctx)
      },
      onMessage(from, raw, ctx) {
        const msg = parseTemporalMessage(raw)
        if (typeof msg === 'string') return ctx.emit({ type: 'ignored', from, reason: msg })
        receive(from, msg as TemporalMsg<P>, ctx)
      },
      onTimer(key, ctx) {
        if (key === 'due') deliverDue(ctx)
      },
    }
  }
}
