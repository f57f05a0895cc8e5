import { addChecked, checkCounter, checkIncrement } from './arguments.js'
import { InvalidClockArgumentError } from './errors.js'
import { compareNodeIds, isNodeId, type NodeId } from './ids.js'

/** A Lamport time with its process id: the pair (T, pid) that totally orders events. */
export interface LamportTimestamp {
  readonly time: number
  readonly pid: NodeId
}

/**
 * The total order of the texts: (Ta, pa) < (Tb, pb) iff Ta < Tb, or Ta = Tb and pa < pb.
 * Returns < 0, 0 or > 0, so it sorts arrays directly.
 */
export function compareLamport(a: LamportTimestamp, b: LamportTimestamp): number {
  if (a.time !== b.time) return a.time < b.time ? -1 : 1
  return compareNodeIds(a.pid, b.pid)
}

/**
 * The largest Lamport time a delivery protocol takes from a peer: 2^52. A received time is adopted
 * (R2), so one message stamped near 2^53 would leave the receiver's clock unable to count its next
 * event (ClockOverflowError inside a handler). Refusing anything above 2^52 keeps at least 2^52
 * events of headroom after any message, and no honest clock gets there: at a million events a
 * second it takes over a century.
 */
export const MAX_PEER_LAMPORT_TIME = 2 ** 52

export interface LamportClockOptions {
  /** The process id used to break ties in the total order. */
  pid: NodeId
  /** The initial value C (default 0). */
  start?: number
  /** The default increment d of rule R1 (default 1, must be > 0). */
  step?: number
}

/**
 * Lamport's scalar clock. R1: before each event C := C + d. R2: a message carries C; on receipt
 * C := max(C, C_msg), then R1. Guarantees the clock condition a -> b  =>  C(a) < C(b).
 */
export class LamportClock {
  readonly pid: NodeId
  readonly step: number
  private value: number

  constructor(options: LamportClockOptions) {
    if (!isNodeId(options.pid)) {
      throw new InvalidClockArgumentError(
        `LamportClock: pid must be a finite number or a string, got ${String(options.pid)}`,
      )
    }
    this.pid = options.pid
    this.step = options.step ?? 1
    checkIncrement(this.step, 'LamportClock')
    this.value = options.start ?? 0
    checkCounter(this.value, 'LamportClock start')
  }

  /** The current value C (the timestamp of the last event). */
  get time(): number {
    return this.value
  }

  /** The current value paired with the pid, for the total order. */
  get timestamp(): LamportTimestamp {
    return { time: this.value, pid: this.pid }
  }

  /** R1 for an internal event: C := C + d. Returns the event's time. */
  tick(d: number = this.step): number {
    checkIncrement(d, 'LamportClock.tick')
    this.value = addChecked(this.value, d, 'LamportClock.tick')
    return this.value
  }

  /** A send is an event: R1, then the message carries the new C. Returns the time to attach. */
  send(d: number = this.step): number {
    return this.tick(d)
  }

  /** R2 on receipt of a message stamped `remote`: C := max(C, remote), then R1. Returns the receive event's time. */
  receive(remote: number, d: number = this.step): number {
    checkCounter(remote, 'LamportClock.receive')
    checkIncrement(d, 'LamportClock.receive')
    if (remote > this.value) this.value = remote
    return this.tick(d)
  }

  /** Overwrites C (restoring persisted state). It never moves backwards unless you say so. */
  restore(value: number): void {
    checkCounter(value, 'LamportClock.restore')
    this.value = value
  }

  toJSON(): { kind: 'lamport'; pid: NodeId; time: number } {
    return { kind: 'lamport', pid: this.pid, time: this.value }
  }
}
