import { InvalidClockArgumentError } from './errors.js'
import { compareNodeIds, type NodeId } from './ids.js'
import type { ClockProtocol, ProtocolContext } from './protocol.js'

/** A causally ordered broadcast as it travels: the sender's delivery vector and the payload. */
export interface CausalMessage<P> {
  type: 'causal'
  /** clock[k] = how many broadcasts of member k (in ascending id order) the sender had delivered, its own included. */
  clock: number[]
  payload: P
}

/** A message handed to the application, in causal order. */
export interface CausalDelivery<P> {
  from: NodeId
  /** Its sequence number among `from`'s broadcasts (1, 2, ...). */
  seq: number
  /** The vector timestamp the message carried. */
  clock: number[]
  payload: P
  /** It waited in the buffer for messages that causally precede it. */
  delayed: boolean
  /** The receiver's delivery vector right after this delivery. */
  local: number[]
}

/**
 * The pure core of causal broadcast (Birman, Schiper, Stephenson): a message from member s with
 * vector W is delivered when W[s] = V[s] + 1 (the next from s) and W[k] <= V[k] for every other k
 * (everything s had delivered when it sent is delivered here); until then it waits in a buffer.
 * Each check costs O(n); buffered messages are indexed by sender and sequence number.
 */
export class CausalBuffer<P> {
  /** Members in ascending id order: the index of a member in this list is its vector entry. */
  readonly members: readonly NodeId[]
  readonly self: NodeId
  private readonly selfIndex: number
  private readonly delivered: number[]
  private readonly held: Map<number, CausalMessage<P>>[]
  private heldCount = 0

  constructor(self: NodeId, members: readonly NodeId[]) {
    this.members = [...new Set([self, ...members])].sort(compareNodeIds)
    this.self = self
    this.selfIndex = this.members.indexOf(self)
    this.delivered = this.members.map(() => 0)
    this.held = this.members.map(() => new Map())
  }

  /** How many messages wait in the buffer. */
  get pending(): number {
    return this.heldCount
  }

  /** A copy of the delivery vector V. */
  get clock(): number[] {
    return [...this.delivered]
  }

  /** Stamps a new broadcast of ours; the sender delivers its own message at once. */
  broadcast(payload: P): { message: CausalMessage<P>; delivery: CausalDelivery<P> } {
    this.delivered[this.selfIndex]!++
    const clock = [...this.delivered]
    const seq = clock[this.selfIndex]!
    return {
      message: { type: 'causal', clock, payload },
      delivery: { from: this.self, seq, clock, payload, delayed: false, local: [...clock] },
    }
  }

  /**
   * Takes a message from `from` and returns every message that became deliverable, in delivery
   * order (possibly none, possibly several that were waiting for this one). Duplicates are dropped.
   * Throws InvalidClockArgumentError for a sender outside the group or a malformed vector.
   */
  receive(from: NodeId, message: CausalMessage<P>): CausalDelivery<P>[] {
    const s = this.members.indexOf(from)
    if (s < 0 || s === this.selfIndex) {
      throw new InvalidClockArgumentError(
        `causal broadcast: ${JSON.stringify(from)} is not another member of the group`,
      )
    }
    const w = message.clock
    if (!Array.isArray(w) || w.length !== this.members.length || !w.every(isCount)) {
      throw new InvalidClockArgumentError(
        `causal broadcast: message from ${JSON.stringify(from)} has a malformed vector (expected ${this.members.length} integers >= 0)`,
      )
    }
    const seq = w[s]!
    if (seq <= this.delivered[s]! || this.held[s]!.has(seq)) return []
    if (!this.deliverable(s, w)) {
      this.held[s]!.set(seq, message)
      this.heldCount++
      return []
    }
    const out = [this.deliver(s, message, false)]
    this.drain(out)
    return out
  }

  private deliverable(s: number, w: readonly number[]): boolean {
    const v = this.delivered
    if (w[s] !== v[s]! + 1) return false
    for (let k = 0; k < v.length; k++) if (k !== s && w[k]! > v[k]!) return false
    return true
  }

  private deliver(s: number, m: CausalMessage<P>, delayed: boolean): CausalDelivery<P> {
    this.delivered[s] = m.clock[s]!
    return {
      from: this.members[s]!,
      seq: m.clock[s]!,
      clock: m.clock,
      payload: m.payload,
      delayed,
      local: [...this.delivered],
    }
  }

  /** Delivers held messages until none is deliverable: only each sender's next one can be. */
  private drain(out: CausalDelivery<P>[]): void {
    let progress = this.heldCount > 0
    while (progress) {
      progress = false
      for (let s = 0; s < this.held.length; s++) {
        const queue = this.held[s]!
        const next = queue.get(this.delivered[s]! + 1)
        if (next !== undefined && this.deliverable(s, next.clock)) {
          queue.delete(next.clock[s]!)
          this.heldCount--
          out.push(this.deliver(s, next, true))
          progress = true
        }
      }
    }
  }
}

function isCount(v: unknown): boolean {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0
}

/** Ask a member to broadcast `payload` to the group in causal order. */
export interface CausalBroadcastRequest<P> {
  type: 'broadcast'
  payload: P
}

/** What the causal broadcast protocol publishes. */
export type CausalEvent<P> =
  | { type: 'broadcast'; seq: number; clock: number[]; payload: P }
  | ({ type: 'deliver' } & CausalDelivery<P>)
  | { type: 'buffered'; from: NodeId; seq: number; clock: number[]; pending: number }
  | { type: 'malformed'; from: NodeId; reason: string }

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
  const init = (ctx: ProtocolContext<CausalMessage<P>, CausalEvent<P>>) => {
    buffer ??= new CausalBuffer<P>(ctx.self, ctx.peers)
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
    onMessage(from, msg, ctx) {
      const b = init(ctx)
      if (msg === null || typeof msg !== 'object' || msg.type !== 'causal') {
        ctx.emit({ type: 'malformed', from, reason: 'not a causal broadcast message' })
        return
      }
      const before = b.pending
      let delivered: CausalDelivery<P>[]
      try {
        delivered = b.receive(from, msg)
      } catch (error) {
        // A bad packet is reported, never allowed to stop the protocol.
        if (error instanceof InvalidClockArgumentError) {
          ctx.emit({ type: 'malformed', from, reason: error.message })
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
  }
}
