import type { Ctx, NodeId, Protocol } from '../src/index.js'

/** Test protocols: small, observable, and deliberately dumb. */

/** Answers every ping with a pong, and counts what it saw. */
export class Echo
  implements Protocol<{ type: 'ping' | 'pong'; n: number }, { to: NodeId; n: number }, string>
{
  received: Array<{ from: NodeId; n: number; type: string }> = []
  onMessage(
    from: NodeId,
    msg: { type: 'ping' | 'pong'; n: number },
    ctx: Ctx<{ type: 'ping' | 'pong'; n: number }, string>,
  ) {
    this.received.push({ from, ...msg })
    if (msg.type === 'ping') ctx.send(from, { type: 'pong', n: msg.n })
    else ctx.emit(`pong ${msg.n} from ${String(from)}`)
  }
  onRequest(
    req: { to: NodeId; n: number },
    ctx: Ctx<{ type: 'ping' | 'pong'; n: number }, string>,
  ) {
    ctx.send(req.to, { type: 'ping', n: req.n })
  }
}

/** Ticks every `period` ms of local time, forever, emitting the local clock reading. */
export class Ticker implements Protocol<never, never, { tick: number; local: number }> {
  ticks = 0
  constructor(private readonly period: number) {}
  start(ctx: Ctx<never, { tick: number; local: number }>) {
    ctx.setTimer('tick', this.period)
  }
  onMessage() {}
  onTimer(_key: string, ctx: Ctx<never, { tick: number; local: number }>) {
    this.ticks++
    ctx.emit({ tick: this.ticks, local: ctx.now() })
    ctx.setTimer('tick', this.period)
  }
}
