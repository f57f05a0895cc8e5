import type { NodeId } from '@sd/transport'

/** The synchronizers of this package, named in their events. */
export type SyncAlgorithm = 'cristian' | 'berkeley' | 'ntp'

/**
 * Emitted by a node when it corrects its clock. `offsetMs` is the correction (target minus the
 * reading, positive when the clock was behind); `errorBoundMs` bounds how far the target itself
 * may be from the reference (the server, the group's average, the selected sources).
 */
export interface AdjustedEvent {
  type: 'adjusted'
  algorithm: SyncAlgorithm
  offsetMs: number
  errorBoundMs: number
  /** The software clock's reading when the correction was decided: the target is this plus offsetMs. */
  readingMs: number
  /** How the software clock applies it: slewed over time, stepped forward, or nothing to do. */
  kind: 'slew' | 'step' | 'none'
  /** The node whose time was the reference (Cristian's server, Berkeley's master). */
  source?: NodeId
  /** The round trip of the sample used, in ms of this node's clock. */
  rttMs?: number
}

/** Emitted when a round ends without any usable sample. */
export interface SyncFailedEvent {
  type: 'sync-failed'
  algorithm: SyncAlgorithm
  reason: string
}

/** Every synchronizer accepts this request: run a round now. */
export interface SyncRequest {
  type: 'sync'
}

/** A message dropped unread: it did not have the shape of one of the protocol's messages. */
export interface IgnoredEvent {
  type: 'ignored'
  from: NodeId
  reason: string
}
