import type {
  Clock,
  NodeId,
  ProtocolFactory,
  StorageBackend,
  TimerScheduler,
  Transport,
} from '@sd/transport'
import type { LockMode, MutexEvent, MutexRequest } from '../contract.js'
import { InvalidArgumentError } from '../errors.js'
import type { AbortSignalLike } from './signal.js'

/**
 * Any algorithm of this package, whichever it is: the type of an algorithm chosen at run time
 * (`const algorithm: MutexAlgorithm = ra ? ricartAgrawala() : centralized()`). Its lock speaks the
 * contract every algorithm shares (`MutexRequest`, `MutexEvent`).
 */
export type MutexAlgorithm = ProtocolFactory<unknown, MutexRequest, MutexEvent>

export interface MutexOptions<Msg, Req, Ev> {
  /** This node's transport (UDP, or a simulator node's): the caller owns it and closes it. */
  transport: Transport<Msg>
  /** The algorithm, as its factory: `centralized({ ... })`, `ricartAgrawala()`... */
  algorithm: ProtocolFactory<Msg, Req, Ev>
  /** Every member of the group, this node included or not. */
  members: readonly NodeId[]
  /** Stable storage for the protocol (`openFileStorage(path)`): fencing tokens survive restarts. */
  storage?: StorageBackend
  /** The resource `acquire` takes when it names none; default `'default'`. */
  resource?: string
  /** Sees every event of the protocol (attached before it starts). */
  onEvent?: (event: Ev) => void
  /** Where time comes from (the protocol's and the lock's own timeouts). Default: the system clock. */
  clock?: Clock
  /** Where timers live. Default: real (unref'd) timers. */
  timers?: TimerScheduler
  /**
   * The monotonic clock leases are counted on: the protocol's `ctx.monotonic()`, and a handle's
   * `held` / `assertHeld()`, which compare it with the lease's end. Default: `performance.now()`.
   */
  monotonic?: Clock
  /**
   * Counting semaphores: each resource named here has that many permits (its `of`, set once for
   * the group: give every node the same). `acquire({ resource, permits: n })` takes n of them.
   */
  permits?: Readonly<Record<string, number>>
  /**
   * Lets an `owner` (`acquire({ owner })`) acquire a resource it holds again, up to `limit` holds
   * at once: the nested handle has the outer one's token; the entry is released with the outermost.
   */
  reentrancy?: { limit: number }
}

export interface AcquireOptions {
  /** Default: the lock's `resource`. */
  resource?: string
  /** Give up after this many ms (`MutexTimeoutError`); default: wait as long as it takes. */
  timeoutMs?: number
  /** Give up when aborted (`MutexAbortedError`, with the signal's reason as `cause`). */
  signal?: AbortSignalLike
  /**
   * `'shared'` holders hold together, never beside an exclusive one; an algorithm without the
   * `'shared'` feature grants an exclusive entry instead (the handle's `mode` says which).
   * Default `'exclusive'`.
   */
  mode?: LockMode
  /** Takes this many of the resource's permits (its limit: `createMutex({ permits })`). */
  permits?: number
  /** Only if it can be granted at once; otherwise rejects with `LockUnavailableError`. */
  ifAvailable?: boolean
  /** Takes the resource from its holders now (their handles are lost, reason `'stolen'`). */
  steal?: boolean
  /**
   * Higher first among this lock's waiters of a resource (FIFO among equals); default 0. It orders
   * this node's waiters only: the cluster's queue stays the algorithm's.
   */
  priority?: number
  /** Who acquires, for reentrancy (`createMutex({ reentrancy })`): any value compared with ===. */
  owner?: unknown
}

/** The longest delay a real timer honours. */
export const MAX_TIMER_MS = 2 ** 31 - 1

export function checkResource(resource: unknown, where: string): string {
  if (typeof resource !== 'string') {
    throw new InvalidArgumentError(`${where}: resource must be a string, got ${String(resource)}`)
  }
  return resource
}

export function checkTimeout(ms: unknown): number | undefined {
  if (ms === undefined) return undefined
  if (typeof ms !== 'number' || Number.isNaN(ms) || ms < 0) {
    throw new InvalidArgumentError(`acquire: timeoutMs must be a number >= 0, got ${String(ms)}`)
  }
  if (ms === Number.POSITIVE_INFINITY) return undefined
  if (ms > MAX_TIMER_MS) {
    throw new InvalidArgumentError(
      `acquire: timeoutMs must be at most ${MAX_TIMER_MS} (or Infinity)`,
    )
  }
  return ms
}

export function checkPriority(priority: unknown): number {
  if (priority === undefined) return 0
  if (typeof priority !== 'number' || Number.isNaN(priority)) {
    throw new InvalidArgumentError(`acquire: priority must be a number, got ${String(priority)}`)
  }
  return priority
}

export function checkMode(mode: unknown): LockMode {
  if (mode === undefined || mode === 'exclusive') return 'exclusive'
  if (mode === 'shared') return 'shared'
  throw new InvalidArgumentError(
    `acquire: mode must be 'exclusive' or 'shared', got ${String(mode)}`,
  )
}

/** A count of 1 or more (a permit limit, a take, a reentrancy limit). */
export function checkCount(n: unknown, what: string): number {
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) {
    throw new InvalidArgumentError(`${what} must be an integer >= 1, got ${String(n)}`)
  }
  return n
}

/** The permit limits, each a count of 1 or more. */
export function checkLimits(
  limits: Readonly<Record<string, number>> | undefined,
): Record<string, number> {
  const checked: Record<string, number> = {}
  for (const [resource, of] of Object.entries(limits ?? {})) {
    checked[resource] = checkCount(of, `createMutex: permits[${JSON.stringify(resource)}]`)
  }
  return checked
}
