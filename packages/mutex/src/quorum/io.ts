import type { NodeId } from '@sd/transport'
import type { QuorumEvent, QuorumMessage } from './messages.js'

/** What the client and coordinator roles may do: the protocol's ctx, with sends to self looped back. */
export interface Io {
  readonly self: NodeId
  send(to: NodeId, msg: QuorumMessage): void
  emit(event: QuorumEvent): void
  setTimer(key: string, ms: number): void
  cancelTimer(key: string): void
  random(): number
  /** Milliseconds on a clock that never steps: durations only. */
  monotonic(): number
}
