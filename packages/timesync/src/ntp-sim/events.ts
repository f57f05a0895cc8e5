import type { NodeId } from '@sd/transport'
import type { AdjustedEvent, IgnoredEvent, SyncFailedEvent } from '../contract.js'

/** Which servers the selection trusted in a poll, and the interval they share. */
export interface NtpSelectionEvent {
  type: 'ntp-selection'
  truechimers: NodeId[]
  falsetickers: NodeId[]
  /** Servers that gave no valid sample yet. */
  silent: NodeId[]
  lowMs: number
  highMs: number
}

/** A reply refused by the client's checks (the reason names which). */
export interface NtpRejectEvent {
  type: 'ntp-rejected'
  server: NodeId
  reason: string
}

/**
 * A client forgot its clock filters' samples: they were measured on its wall clock, which has
 * since stepped by `stepMs` against its monotonic clock, so their offsets are off by the step.
 * Replies to requests sent before the step are dropped too.
 */
export interface NtpFilterFlushedEvent {
  type: 'filter-flushed'
  reason: 'wall-clock step'
  /** How far the wall clock moved against the monotonic one, ms (negative: back). */
  stepMs: number
  /** Samples forgotten, over all servers. */
  dropped: number
}

export type NtpSimEvent =
  | AdjustedEvent
  | SyncFailedEvent
  | NtpSelectionEvent
  | NtpRejectEvent
  | NtpFilterFlushedEvent
  | IgnoredEvent
