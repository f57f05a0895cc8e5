import type { NodeId } from '@sd/transport'

import type { ProcessId } from './graph/types.js'

export type { ProcessId }

/** `from` started waiting for `to` (the holder of a lock `from` asked for). */
export interface WaitsForEvent {
  type: 'waits-for'
  from: ProcessId
  to: ProcessId
  resource: string
}

/** `from` stopped waiting for `to`: granted, aborted, or the lock passed to someone else. */
export interface WaitEndedEvent {
  type: 'wait-ended'
  from: ProcessId
  to: ProcessId
  resource: string
  why: 'granted' | 'aborted' | 'holder-changed'
}

/** A detector found a cycle of waits and picked the victim that breaks it. */
export interface DeadlockEvent {
  type: 'deadlock'
  /** The processes of the cycle, each waiting for the next (and the last for the first). */
  cycle: ProcessId[]
  victim: ProcessId
}

/** What the processes of the manager do, for the trace. */
export type ProcessEvent =
  | { type: 'started'; process: ProcessId; timestamp: number }
  | { type: 'granted'; process: ProcessId; resource: string }
  | { type: 'released'; process: ProcessId; resource: string }
  | { type: 'finished'; process: ProcessId }
  | { type: 'aborted'; process: ProcessId; reason: 'deadlock-victim' | 'wait-die' | 'wound-wait' }

/** Centralized detection's account of a cycle it collected but could not confirm. */
export interface PhantomEvent {
  type: 'phantom'
  cycle: ProcessId[]
}

/** A message dropped unread: not of a declared shape, or naming what no site knows. */
export interface IgnoredEvent {
  type: 'ignored'
  from: NodeId
  reason: string
}

export type DeadlockManagerEvent =
  | IgnoredEvent
  | WaitsForEvent
  | WaitEndedEvent
  | DeadlockEvent
  | ProcessEvent
  | PhantomEvent

/** One step of a process's script. */
export type ProcessStep = { acquire: string } | { release: string } | { work: number }

/**
 * A process's script: `steps` in order, or the shorthand `resources` (acquire them in order,
 * work `workMs`). Whatever it still holds at the end is released; then it has finished.
 */
export interface ProcessSpec {
  id: ProcessId
  /** The site that runs it. */
  home: NodeId
  resources?: readonly string[]
  /** With `resources`: time holding everything before releasing (ms). Default 10. */
  workMs?: number
  steps?: readonly ProcessStep[]
  /** When it starts (ms after its site starts). Default 0. */
  startAt?: number
}

/** Requests a site accepts: run a process now, or (centralized detection) detect now. */
export type DeadlockRequest = { type: 'run'; process: ProcessSpec } | { type: 'detect' }
