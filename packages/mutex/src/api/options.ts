import type {
  Clock,
  NodeId,
  ProtocolFactory,
  StorageBackend,
  TimerScheduler,
  Transport,
} from '@sd/transport'
import type { MutexEvent, MutexRequest } from '../contract.js'
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
}

export interface AcquireOptions {
  /** Default: the lock's `resource`. */
  resource?: string
  /** Give up after this many ms (`MutexTimeoutError`); default: wait as long as it takes. */
  timeoutMs?: number
  /** Give up when aborted (`MutexAbortedError`, with the signal's reason as `cause`). */
  signal?: AbortSignalLike
}

/** The longest delay a real timer honours. */
const MAX_TIMER_MS = 2 ** 31 - 1

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
