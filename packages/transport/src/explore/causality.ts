/**
 * Happens-before for invariants. The explorer runs without a trace, and with the reduction on an
 * invariant must not depend on the order of independent events; vector clocks carried by the
 * protocol's own messages give it causality instead. Wrap the factory with `withVectorClocks`,
 * and every emitted event arrives as `{ event, vc }`.
 */
import { InvalidArgumentError } from '../errors.js'
import type { Ctx, Protocol, ProtocolFactory } from '../protocol.js'
import { snapshotFields } from '../snapshot-fields.js'

/** A vector clock: node id (as a string) to the count of its events. */
export type Clock = Record<string, number>
/** A message with the sender's vector clock. */
export type Stamped<Msg> = { vc: Clock; msg: Msg }
/** An emitted event with the emitter's vector clock at that moment. */
export type WithClock<Ev> = { event: Ev; vc: Clock }

/**
 * Runs `factory` with a vector clock on every node: a send (a broadcast is one event) and an
 * emit are events; a delivery merges the sender's clock. Each emitted event carries the clock.
 */
export function withVectorClocks<Msg, Req, Ev>(
  factory: ProtocolFactory<Msg, Req, Ev>,
): ProtocolFactory<Stamped<Msg>, Req, WithClock<Ev>> {
  return (self) => {
    const inner = factory(self)
    const me = String(self)
    let vc: Clock = {}
    const tick = (): Clock => {
      vc = { ...vc, [me]: (vc[me] ?? 0) + 1 }
      return vc
    }
    const wrap = (ctx: Ctx<Stamped<Msg>, WithClock<Ev>>): Ctx<Msg, Ev> => ({
      self: ctx.self,
      get peers() {
        return ctx.peers
      },
      now: () => ctx.now(),
      monotonic: () => ctx.monotonic(),
      send: (to, msg) => ctx.send(to, { vc: tick(), msg }),
      broadcast: (msg) => ctx.broadcast({ vc: tick(), msg }),
      setTimer: (key, ms) => ctx.setTimer(key, ms),
      cancelTimer: (key) => ctx.cancelTimer(key),
      random: () => ctx.random(),
      emit: (event) => ctx.emit({ event, vc: tick() }),
      storage: ctx.storage,
    })
    const protocol: Protocol<Stamped<Msg>, Req, WithClock<Ev>> = {
      onMessage(from, { vc: theirs, msg }, ctx) {
        const merged = { ...vc }
        for (const [k, v] of Object.entries(theirs)) merged[k] = Math.max(merged[k] ?? 0, v)
        vc = merged
        tick()
        inner.onMessage(from, msg, wrap(ctx))
      },
    }
    // The clock is state too: it orders what this node emits and sends from here on.
    if (inner.snapshot) protocol.snapshot = () => ({ vc, inner: inner.snapshot!() })
    // Restored with its clock, so a checkpoint of the wrapped protocol is one of this too.
    if (inner.snapshot && inner.restore)
      protocol.restore = (snapshot) => {
        const saved = snapshotFields(snapshot, 'withVectorClocks', ['vc', 'inner'])
        vc = clockOf(saved.vc)
        inner.restore!(saved.inner)
      }
    if (inner.start) protocol.start = (ctx) => inner.start!(wrap(ctx))
    if (inner.onTimer) protocol.onTimer = (key, ctx) => inner.onTimer!(key, wrap(ctx))
    if (inner.onRequest) protocol.onRequest = (req, ctx) => inner.onRequest!(req, wrap(ctx))
    if (inner.onSignal) protocol.onSignal = (signal, ctx) => inner.onSignal!(signal, wrap(ctx))
    return protocol
  }
}

/** A vector clock as a snapshot holds it, checked: counts that are non-negative integers. */
function clockOf(value: unknown): Clock {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new InvalidArgumentError('withVectorClocks: restore() expected a vector clock object')
  const clock: Clock = {}
  for (const [k, v] of Object.entries(value)) {
    if (!Number.isSafeInteger(v) || (v as number) < 0)
      throw new InvalidArgumentError(
        `withVectorClocks: restore() got a count ${String(v)} for ${k}`,
      )
    clock[k] = v as number
  }
  return clock
}

/** a happened before b, or is b: every entry of a at most b's. */
export function atOrBefore(a: Clock, b: Clock): boolean {
  return Object.entries(a).every(([k, v]) => v <= (b[k] ?? 0))
}
