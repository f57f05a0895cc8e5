import type { Ctx, JsonValue, NodeId } from '@sd/transport'

/** A context driven by hand: the clock is `clock`, timers and emits are recorded, sends dropped. */
export interface StubCtx<Msg, Ev> extends Ctx<Msg, Ev> {
  clock: number
  readonly timers: Map<string, number>
  readonly emitted: Ev[]
}

export function stubCtx<Msg = never, Ev = unknown>(
  self: NodeId,
  peers: NodeId[],
): StubCtx<Msg, Ev> {
  const stored = new Map<string, JsonValue>()
  const ctx: StubCtx<Msg, Ev> = {
    self,
    peers,
    clock: 0,
    timers: new Map(),
    emitted: [],
    now: () => ctx.clock,
    monotonic: () => ctx.clock,
    send: () => {},
    broadcast: () => {},
    setTimer: (key, ms) => void ctx.timers.set(key, ctx.clock + ms),
    cancelTimer: (key) => void ctx.timers.delete(key),
    random: () => 0.5,
    emit: (event) => void ctx.emitted.push(event),
    storage: {
      get: (key) => stored.get(key),
      set: (key, value) => void stored.set(key, value),
      delete: (key) => void stored.delete(key),
      keys: () => [...stored.keys()].sort(),
    },
  }
  return ctx
}

/** A watch hears a heartbeat every `everyMs` from 0 to `untilMs`, the stub's clock moved along. */
export function heardEvery<Msg, Ev>(
  watch: { heard(ctx: StubCtx<Msg, Ev>): void },
  ctx: StubCtx<Msg, Ev>,
  everyMs: number,
  untilMs: number,
): void {
  for (let t = 0; t <= untilMs; t += everyMs) {
    ctx.clock = t
    watch.heard(ctx)
  }
}
