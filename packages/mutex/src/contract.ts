/**
 * What every mutual exclusion protocol of this package understands and emits. The events are a
 * contract: the playground, a visualizer or anyone's checker judges a run from the trace alone.
 */

/** Resources are named; an algorithm that manages one resource uses this name. */
export const DEFAULT_RESOURCE = 'default'

/** Local requests to a node's protocol (through `SimNetwork.request` or `runProtocol().request`). */
export type MutexRequest =
  | { type: 'acquire'; resource?: string }
  | { type: 'release'; resource?: string }

/**
 * Emitted when the node enters the critical section of `resource`. `token` is a fencing token:
 * it strictly increases from one entry to the next on that resource, whoever enters.
 */
export interface AcquiredEvent {
  type: 'acquired'
  resource: string
  token: number
  /**
   * With leases: the entry is valid for this many ms from now (on the holder's monotonic clock),
   * unless renewed (`lease-renewed`); absent when the algorithm has no leases.
   */
  leaseMs?: number
}

/** Emitted when the node leaves the critical section it entered with `token`. */
export interface ReleasedEvent {
  type: 'released'
  resource: string
  token: number
}

/** The events every algorithm emits; each adds its own beside them. */
export type MutexEvent = AcquiredEvent | ReleasedEvent

/** The resource a request names (DEFAULT_RESOURCE when it names none). */
export function resourceOf(req: MutexRequest): string {
  return req.resource ?? DEFAULT_RESOURCE
}
