/**
 * What every mutual exclusion protocol of this package understands and emits. The events are a
 * contract: the playground, a visualizer or anyone's checker judges a run from the trace alone.
 */

import type { NodeId } from '@sd/transport'

/** Resources are named; an algorithm that manages one resource uses this name. */
export const DEFAULT_RESOURCE = 'default'

/**
 * How a holder holds a resource. `'exclusive'` (the default) excludes every other holder;
 * `'shared'` holders (readers) may hold together, never beside an exclusive one.
 */
export type LockMode = 'exclusive' | 'shared'

/**
 * A new view of the group, from a membership service (an agreed view through the majority
 * leader, or SWIM's): from view number `view` on, the group is `members` (this node included
 * while it belongs). Views are numbered upwards; an algorithm that follows views ignores one not
 * above the view it has, and its requests carry their view number. An algorithm that does not
 * follow views ignores the request (`ignored` event); see `lockFeaturesOf` ('views').
 */
export interface ViewRequest {
  type: 'view'
  view: number
  members: NodeId[]
}

/** A counting semaphore's request: `take` of the resource's `of` permits (1 <= take <= of). */
export interface PermitCount {
  take: number
  of: number
}

/**
 * Local requests to a node's protocol (through `SimNetwork.request` or `runProtocol().request`).
 * `mode` and `permits` ask for more concurrency than an exclusive entry; an algorithm that does
 * not know them grants an exclusive entry instead (a stronger guarantee), and its `acquired`
 * event then carries neither field. A node holds a resource once, in one mode.
 */
export type MutexRequest =
  | {
      type: 'acquire'
      resource?: string
      mode?: LockMode
      permits?: PermitCount
      /** Only if it can be granted at once; otherwise `unavailable` is emitted and nothing waits. */
      ifAvailable?: boolean
      /** Takes the resource from its holders now (their `lease-lost`, reason `'stolen'`). */
      steal?: boolean
    }
  | { type: 'release'; resource?: string }

/**
 * What an algorithm honours beyond exclusive entries. `shared` and `permits` asked of an
 * algorithm without them are granted as exclusive entries (safe, less concurrent); `ifAvailable`
 * and `steal` cannot be, so the lock refuses them (`UnsupportedLockFeatureError`). `query`: it
 * answers a `LockQueryRequest` with a `LockStateEvent`, its view of every node's locks.
 */
export type LockFeature = 'shared' | 'permits' | 'ifAvailable' | 'steal' | 'views' | 'query'

/** Asks an algorithm marked `'query'` for the cluster's locks; answered by a `lock-state` of this `id`. */
export interface LockQueryRequest {
  type: 'query'
  /** Chosen by the caller (a string of at most 200 characters, or a finite number). */
  id: string | number
}

/** One node's entry in a `lock-state`: how it holds (`permits` for a semaphore's entry). */
export interface LockStateEntry {
  node: NodeId
  mode: LockMode
  permits?: PermitCount
}

/** One resource in a `lock-state`: its holders, and its waiting requests in the order considered. */
export interface LockStateResource {
  resource: string
  holders: (LockStateEntry & { token: number })[]
  queue: (LockStateEntry & { steal?: true })[]
}

/**
 * An algorithm's view of every node's locks, answering the `query` of `id`, as one node (its
 * coordinator, `term`) saw them at one instant. `recovering`: that node does not know every
 * holder yet (the view is incomplete); `truncated`: resources past a size bound were left out.
 */
export interface LockStateEvent {
  type: 'lock-state'
  id: string | number
  term: number
  recovering: boolean
  truncated: boolean
  resources: LockStateResource[]
}

/** A factory marked with the features of its algorithm (see `lockFeaturesOf`). */
export type WithLockFeatures<F> = F & { readonly lockFeatures: readonly LockFeature[] }

/** Marks an algorithm's factory with the features it honours. */
export function withLockFeatures<F extends object>(
  factory: F,
  features: readonly LockFeature[],
): WithLockFeatures<F> {
  return Object.assign(factory, { lockFeatures: Object.freeze([...features]) })
}

/** The features a factory was marked with (none: exclusive entries only). */
export function lockFeaturesOf(factory: unknown): readonly LockFeature[] {
  const marked = (factory as { lockFeatures?: unknown } | null)?.lockFeatures
  return Array.isArray(marked) ? (marked as LockFeature[]) : []
}

/**
 * Emitted when the node enters the critical section of `resource`. `token` is a fencing token:
 * an exclusive entry's token is above every token entered before it on that resource, whoever
 * entered; a shared or permit entry's token is above every exclusive token entered before it
 * (entries that hold together may enter in any order of their tokens). Tokens are never reused.
 */
export interface AcquiredEvent {
  type: 'acquired'
  resource: string
  token: number
  /** `'shared'` for a shared entry; absent for an exclusive one. */
  mode?: LockMode
  /** For a semaphore's entry: the permits it took, of how many; absent otherwise. */
  permits?: PermitCount
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

/** An `ifAvailable` acquire of `resource` that could not be granted at once: nothing waits. */
export interface UnavailableEvent {
  type: 'unavailable'
  resource: string
}

/** The events every algorithm emits; each adds its own beside them. */
export type MutexEvent = AcquiredEvent | ReleasedEvent

/** How an `acquired` event's entry holds its resource (absent fields: exclusive). */
export function entryKind(event: {
  mode?: unknown
  permits?: unknown
}): { kind: 'exclusive' } | { kind: 'shared' } | { kind: 'permits'; take: number; of: number } {
  const p = event.permits
  if (typeof p === 'object' && p !== null) {
    const { take, of } = p as Record<string, unknown>
    if (typeof take === 'number' && typeof of === 'number') return { kind: 'permits', take, of }
  }
  return event.mode === 'shared' ? { kind: 'shared' } : { kind: 'exclusive' }
}

/** The resource a request names (DEFAULT_RESOURCE when it names none). */
export function resourceOf(req: MutexRequest): string {
  return req.resource ?? DEFAULT_RESOURCE
}
