/**
 * A fenced resource in the simulator, for the fence's property test: holders of the centralized
 * mutex read and write a register on node `r`, which checks their tokens with `createFence` over
 * its `ctx.storage` (so a restart of `r` keeps the fence). A holder decides its write when it
 * enters and sends it `workMs` later whatever happened meanwhile: a holder paused past its lease
 * writes late with its old token, as a process in a GC pause would.
 */
import type { Ctx, NodeId, Protocol, ProtocolFactory } from '@sd/transport'
import type { CentralizedEvent, CentralizedMessage, CentralizedRequest } from '../../src/index.js'
import { createFence } from '../../src/index.js'

export const RESOURCE: NodeId = 'r'

export type FencedOp = { type: 'fenced-read' | 'fenced-write'; token: number }
/** r's answer to a write: the holder releases only then, so its write lands before the next holder's. */
export type FencedAck = { type: 'fenced-ack'; token: number; ok: boolean }

export type ResourceEvent =
  | { type: 'accepted'; kind: 'read' | 'write'; from: NodeId; token: number }
  | { type: 'refused'; kind: 'read' | 'write'; from: NodeId; token: number; newest: number }

/** The register's node: every operation goes through the fence, stored in `ctx.storage`. */
export const fencedResource = (): Protocol<FencedOp | FencedAck, never, ResourceEvent> => ({
  onMessage(from, msg, ctx) {
    if (msg.type === 'fenced-ack') return
    const kind = msg.type === 'fenced-read' ? 'read' : 'write'
    // A fence per handler over ctx.storage: the protocol keeps no ctx past the handler.
    const verdict = createFence({ name: 'register', storage: ctx.storage }).admit(msg.token, {
      kind,
    })
    if (verdict.ok) ctx.emit({ type: 'accepted', kind, from, token: msg.token })
    else ctx.emit({ type: 'refused', kind, from, token: msg.token, newest: verdict.error.newest })
    if (kind === 'write') ctx.send(from, { type: 'fenced-ack', token: msg.token, ok: verdict.ok })
  },
})

export type HolderEvent = CentralizedEvent | { type: 'write-sent'; token: number }
type HolderMessage = CentralizedMessage | FencedOp | FencedAck
const isFencedOp = (msg: CentralizedMessage | FencedOp): msg is FencedOp =>
  msg.type === 'fenced-read' || msg.type === 'fenced-write'
type HolderCtx = Ctx<HolderMessage, HolderEvent>

export interface HolderOptions {
  /** How long a holder works between its read and its write. */
  workMs: number
  /** How long it waits before asking again. */
  thinkMs: number
  /** How many times it enters. */
  rounds: number
  /** How long it waits for r's answer to its write before releasing anyway. */
  ackTimeoutMs: number
}

/**
 * A node of the mutex (coordinator `coordinator`) that, as a holder, reads the register on
 * entering and writes it `workMs` later, then releases and asks again, `rounds` times.
 */
export function holders(
  mutex: ProtocolFactory<CentralizedMessage, CentralizedRequest, CentralizedEvent>,
  coordinator: NodeId,
  options: HolderOptions,
): ProtocolFactory<HolderMessage, CentralizedRequest, HolderEvent> {
  return (self) => {
    const inner = mutex(self)
    let token: number | undefined
    let rounds = 0
    // The inner protocol's ctx: its `acquired` starts the work; its messages pass through.
    const wrap = (ctx: HolderCtx): Ctx<CentralizedMessage, CentralizedEvent> => ({
      get self() {
        return ctx.self
      },
      get peers() {
        return ctx.peers
      },
      get storage() {
        return ctx.storage
      },
      now: () => ctx.now(),
      monotonic: () => ctx.monotonic(),
      send: (to, msg) => ctx.send(to, msg),
      broadcast: (msg) => ctx.broadcast(msg),
      setTimer: (key, ms) => ctx.setTimer(key, ms),
      cancelTimer: (key) => ctx.cancelTimer(key),
      random: () => ctx.random(),
      emit(event) {
        ctx.emit(event)
        if (event.type !== 'acquired') return
        token = event.token
        ctx.send(RESOURCE, { type: 'fenced-read', token })
        ctx.setTimer('work', options.workMs)
      },
    })
    const done = (ctx: HolderCtx) => {
      ctx.cancelTimer('no-ack')
      inner.onRequest?.({ type: 'release' }, wrap(ctx))
      token = undefined
      ctx.setTimer('think', options.thinkMs)
    }
    const acquire = (ctx: HolderCtx) => {
      if (self === coordinator || rounds >= options.rounds) return
      rounds++
      inner.onRequest?.({ type: 'acquire' }, wrap(ctx))
    }
    return {
      start(ctx) {
        inner.start?.(wrap(ctx))
        ctx.setTimer('think', ctx.random() * options.thinkMs)
      },
      onMessage(from, msg, ctx) {
        if (msg.type === 'fenced-ack') {
          if (msg.token === token) done(ctx)
          return
        }
        if (!isFencedOp(msg)) inner.onMessage(from, msg, wrap(ctx))
      },
      onTimer(key, ctx) {
        if (key === 'think') return acquire(ctx)
        if (key === 'no-ack') return done(ctx) // r is down: give the lock back anyway
        if (key !== 'work') return inner.onTimer?.(key, wrap(ctx))
        if (token === undefined) return
        ctx.send(RESOURCE, { type: 'fenced-write', token })
        ctx.emit({ type: 'write-sent', token }) // when it left: late, for a paused holder
        ctx.setTimer('no-ack', options.ackTimeoutMs)
      },
      onRequest(req, ctx) {
        inner.onRequest?.(req, wrap(ctx))
      },
      onSignal(signal, ctx) {
        inner.onSignal?.(signal, wrap(ctx))
      },
    }
  }
}

/**
 * The register's whole history judged: every accepted write carries a token at least that of
 * every write accepted before it, and every accepted read a token at least that of every accepted
 * write before it. Returns what broke, in words.
 */
export function checkFencedHistory(events: readonly TimedResourceEvent[]): string[] {
  const violations: string[] = []
  let newestWrite: TimedResourceEvent | undefined
  for (const e of events) {
    if (e.event.type !== 'accepted') continue
    const before = newestWrite?.event.token ?? 0
    if (e.event.token < before) {
      violations.push(
        `${e.event.kind} by ${String(e.event.from)} with token ${e.event.token} accepted at ${e.t} after a write with ${before} (at ${newestWrite?.t})`,
      )
    }
    if (e.event.kind === 'write' && e.event.token >= before) newestWrite = e
  }
  return violations
}

export interface TimedResourceEvent {
  t: number
  event: ResourceEvent
}
