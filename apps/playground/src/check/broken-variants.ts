/**
 * What the check tests share: `sd` and `sdWith` run the CLI and keep its output, and `wrapping`
 * makes a broken variant of a protocol by changing what its handlers reach through the context
 * (a send rewritten, a timer never set, an event dropped), for the specs to catch.
 */
import type { Ctx, Protocol, ProtocolFactory } from '@sd/transport'
import { main } from '../cli.js'
import { runCheck } from './command.js'
import { checks } from './index.js'
import type { CheckSpec } from './spec.js'

/** Runs `sd ...argv`, output and errors together. */
export function sd(...argv: string[]) {
  const out: string[] = []
  const code = main(argv, { out: (t) => out.push(t), err: (t) => out.push(t) })
  return { code, out: out.join('\n') }
}

/** `sd check` with `extra` specs beside the registered ones (the broken variants). */
export function sdWith(extra: readonly CheckSpec[], ...argv: string[]) {
  const out: string[] = []
  const code = runCheck(argv, { out: (t) => out.push(t) }, [...checks, ...extra])
  return { code, out: out.join('\n') }
}

/** The parts of the context a broken variant may replace. */
export type ContextChange<Msg, Ev> = Partial<
  Pick<Ctx<Msg, Ev>, 'send' | 'broadcast' | 'emit' | 'setTimer'>
>

/** `factory` whose handlers see the context with `change`'s parts in place of the real ones. */
export function wrapping<Msg, Req, Ev>(
  factory: ProtocolFactory<Msg, Req, Ev>,
  change: (ctx: Ctx<Msg, Ev>) => ContextChange<Msg, Ev>,
): ProtocolFactory<Msg, Req, Ev> {
  return (self) => {
    const inner = factory(self)
    const wrap = (ctx: Ctx<Msg, Ev>): Ctx<Msg, Ev> => ({
      self: ctx.self,
      get peers() {
        return ctx.peers
      },
      now: () => ctx.now(),
      monotonic: () => ctx.monotonic(),
      send: (to, msg) => ctx.send(to, msg),
      broadcast: (msg) => ctx.broadcast(msg),
      emit: (event) => ctx.emit(event),
      setTimer: (key, ms) => ctx.setTimer(key, ms),
      cancelTimer: (key) => ctx.cancelTimer(key),
      random: () => ctx.random(),
      storage: ctx.storage,
      ...change(ctx),
    })
    const protocol: Protocol<Msg, Req, Ev> = {
      onMessage: (from, msg, ctx) => inner.onMessage(from, msg, wrap(ctx)),
    }
    if (inner.start) protocol.start = (ctx) => inner.start!(wrap(ctx))
    if (inner.onTimer) protocol.onTimer = (key, ctx) => inner.onTimer!(key, wrap(ctx))
    if (inner.onRequest) protocol.onRequest = (req, ctx) => inner.onRequest!(req, wrap(ctx))
    if (inner.snapshot) protocol.snapshot = () => inner.snapshot!()
    if (inner.snapshot && inner.restore) protocol.restore = (snapshot) => inner.restore!(snapshot)
    return protocol
  }
}
