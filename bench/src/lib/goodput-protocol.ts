/**
 * What the goodput benchmark and its worker processes say to each other (one JSON object per line
 * on the worker's stdin and stdout), and the messages the contenders carry.
 */
import { machineNow } from '../../../test-support/machine-clock.js'

export type Contender = 'udp' | 'tcp'

/** One contender's transfer: `count` messages of `size` bytes, sender to receiver. */
export interface RunSpec {
  run: number
  contender: Contender
  count: number
  size: number
  /** The receiver listens here; a UDP sender binds to port + 1. */
  port: number
  /** The worker gives up on its own this long after the run starts (the parent should stop it first). */
  selfStopMs: number
}

export type WorkerCommand =
  | { cmd: 'receive'; spec: RunSpec }
  | { cmd: 'send'; spec: RunSpec }
  | { cmd: 'stop'; run: number }

/** What a side reports when stopped. Times are in ms of the shared monotonic clock (`nowMs`). */
export interface RunSummary {
  delivered?: number
  outOfOrder?: number
  firstDeliveryAt?: number
  lastDeliveryAt?: number
  backpressureWaits?: number
  /** Messages handed to the transport (sender). */
  accepted?: number
  signals?: string[]
  /** The UDP transport's build that ran, as a file URL. */
  module?: string
  /** The UDP transport's counters. */
  stats?: Record<string, unknown>
  error?: string
}

export type WorkerEvent =
  | { event: 'ready'; run: number }
  | { event: 'started'; run: number; firstSendAt: number }
  | { event: 'complete'; run: number; lastDeliveryAt: number }
  | { event: 'stopped'; run: number; summary: RunSummary }
  | { event: 'failed'; run: number; error: string }

/** CLOCK_MONOTONIC in ms: one clock for every process on the machine, namespaces included. */
export const nowMs = machineNow

const indexDigits = 8

/**
 * Message `index` as a string whose JSON encoding is exactly `size` bytes: the index, zero-padded,
 * then filler. Both contenders send it JSON-encoded, so both pay the same encoding work.
 */
export function makeMessage(index: number, size: number): string {
  return String(index).padStart(indexDigits, '0') + 'x'.repeat(Math.max(0, size - 2 - indexDigits))
}

export function messageIndex(message: unknown): number {
  return typeof message === 'string' ? Number(message.slice(0, indexDigits)) : -1
}

/** Counts messages delivered in order; calls `onComplete` when all `count` have arrived. */
export class InOrderTally {
  delivered = 0
  outOfOrder = 0
  firstDeliveryAt: number | undefined
  lastDeliveryAt: number | undefined

  constructor(
    private readonly count: number,
    private readonly onComplete: (at: number) => void,
  ) {}

  deliver(message: unknown): void {
    if (messageIndex(message) !== this.delivered) {
      this.outOfOrder++
      return
    }
    const now = nowMs()
    this.firstDeliveryAt ??= now
    this.lastDeliveryAt = now
    this.delivered++
    if (this.delivered === this.count) this.onComplete(now)
  }

  summary(): RunSummary {
    return {
      delivered: this.delivered,
      outOfOrder: this.outOfOrder,
      firstDeliveryAt: this.firstDeliveryAt,
      lastDeliveryAt: this.lastDeliveryAt,
    }
  }
}
