/** What a worker process hands to a contender's sender or receiver. */
import type { RunSummary, WorkerEvent } from './goodput-protocol.js'

export interface SideContext {
  /** This namespace's address, and the other one's. */
  self: string
  peer: string
  emit(event: WorkerEvent): void
}

/** A running side of a transfer; `stop` closes everything it opened and reports. */
export interface RunSide {
  stop(): Promise<RunSummary>
}
