import { InvalidClockArgumentError } from '../errors.js'
import type { ClockProtocol, ProtocolContext } from '../protocol.js'
import { CausalBuffer, type CausalBufferSnapshot } from './buffer.js'
import type { CausalDelivery, CausalEvent } from './events.js'
import { type CausalMessage, parseMessage } from './messages.js'

/** Ask a member to broadcast `payload` to the group in causal order. */
export interface CausalBroadcastRequest<P> {
  type: 'broadcast'
  payload: P
}

type CausalCtx<P> = ProtocolContext<CausalMessage<P>, CausalEvent<P>>

/**
 * Causal-order broadcast as a protocol: request `{ type: 'broadcast', payload }`, and every member
 * (the sender included) emits `deliver` events in an order that respects happens-before between
 * broadcasts. Costs n - 1 messages per broadcast, each carrying n integers. Needs reliable links
 * (any order); a lost message blocks what causally follows it, and membership is fixed at start.
 */
export function causalBroadcast<P = unknown>(): ClockProtocol<
  CausalMessage<P>,
  CausalBroadcastRequest<P>,
  CausalEvent<P>
> {
  let buffer: CausalBuffer<P> | undefined
  /** A state given to `restore`, built into a buffer once the node's id is known. */
  let restored: CausalBufferSnapshot<P> | undefined
  const init = (ctx: CausalCtx<P>) => {
    buffer ??=
      restored === undefined
        ? new CausalBuffer<P>(ctx.self, ctx.peers)
        : CausalBuffer.fromSnapshot(ctx.self, restored)
    return buffer
  }
  return {
    start(ctx) {
      init(ctx)
    },
    onRequest(req, ctx) {
      const b = init(ctx)
      if (req === null || typeof req !== 'object' || req.type !== 'broadcast') {
        throw new InvalidClockArgumentError(
          `causal broadcast: unknown request ${JSON.stringify(req)}; expected { type: 'broadcast', payload }`,
        )
      }
      const { message, delivery } = b.broadcast(req.payload)
      ctx.emit({ type: 'broadcast', seq: delivery.seq, clock: message.clock, payload: req.payload })
      ctx.broadcast(message)
      ctx.emit({ type: 'deliver', ...delivery })
    },
    onMessage(from, raw, ctx) {
      const b = init(ctx)
      const msg = parseMessage<P>(raw)
      if (typeof msg === 'string') return ctx.emit({ type: 'ignored', from, reason: msg })
      const before = b.pending
      let delivered: CausalDelivery<P>[]
      try {
        delivered = b.receive(from, msg)
      } catch (error) {
        // A bad packet is reported, never allowed to stop the protocol.
        if (error instanceof InvalidClockArgumentError) {
          ctx.emit({ type: 'ignored', from, reason: error.message })
          return
        }
        throw error
      }
      if (b.pending > before) {
        const s = b.members.indexOf(from)
        ctx.emit({
          type: 'buffered',
          from,
          seq: msg.clock[s]!,
          clock: msg.clock,
          pending: b.pending,
        })
      }
      for (const d of delivered) ctx.emit({ type: 'deliver', ...d })
    },
    snapshot() {
      return buffer === undefined ? (restored ?? null) : buffer.snapshot()
    },
    restore(snapshot) {
      buffer = undefined
      restored = snapshot === null ? undefined : (snapshot as CausalBufferSnapshot<P>)
    },
  }
}
