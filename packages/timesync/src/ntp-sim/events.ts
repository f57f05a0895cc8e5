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

export type NtpSimEvent =
  | AdjustedEvent
  | SyncFailedEvent
  | NtpSelectionEvent
  | NtpRejectEvent
  | IgnoredEvent
