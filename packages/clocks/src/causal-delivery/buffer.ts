import { InvalidClockArgumentError } from '../errors.js'
import { compareNodeIds, type NodeId } from '../ids.js'
import { isCount } from '../message-checks.js'
import type { CausalDelivery } from './events.js'
import type { CausalMessage } from './messages.js'

/** What `CausalBuffer.snapshot()` returns. */
export interface CausalBufferSnapshot<P> {
  members: NodeId[]
  delivered: number[]
  held: { from: NodeId; seq: number; clock: number[]; payload: P }[]
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

  /** A buffer in the state `snapshot()` gave (of a buffer of `self`). */
  static fromSnapshot<P>(self: NodeId, snapshot: CausalBufferSnapshot<P>): CausalBuffer<P> {
    const buffer = new CausalBuffer<P>(self, snapshot.members)
    snapshot.delivered.forEach((n, s) => {
      buffer.delivered[s] = n
    })
    for (const { from, seq, clock, payload } of snapshot.held) {
      buffer.held[buffer.members.indexOf(from)]!.set(seq, { type: 'causal', clock, payload })
      buffer.heldCount++
    }
    return buffer
  }

  /** How many messages wait in the buffer. */
  get pending(): number {
    return this.heldCount
  }

  /** A copy of the delivery vector V. */
  get clock(): number[] {
    return [...this.delivered]
  }

  /**
   * The buffer's state as canonical plain data: the delivery vector and the held messages, by
   * sender in member order, then by sequence number (a Map's insertion order is not state).
   */
  snapshot(): CausalBufferSnapshot<P> {
    const held: CausalBufferSnapshot<P>['held'] = []
    this.held.forEach((queue, s) => {
      const seqs = [...queue.keys()].sort((a, b) => a - b)
      for (const seq of seqs) {
        const m = queue.get(seq)!
        held.push({ from: this.members[s]!, seq, clock: [...m.clock], payload: m.payload })
      }
    })
    return { members: [...this.members], delivered: [...this.delivered], held }
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
