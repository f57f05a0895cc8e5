import { type AsyncDisposableLike, asyncDispose, isSdError, realTimers } from '@sd/transport'
import {
  type LockMode,
  lockFeaturesOf,
  type MutexEvent,
  type MutexRequest,
} from '../../contract.js'
import { createMutex, type Mutex } from '../mutex.js'
import type { MutexOptions } from '../options.js'
import type { PlatformAbortSignal } from '../signal.js'
import { type LockQueryOptions, queryCluster } from './cluster-query.js'
import { LockAbortError, LockManagerClosedError } from './errors.js'
import { type LockOptions, refusalOf } from './rules.js'

/** What a granted request's callback gets: the Web Locks `Lock`, and sd's fencing means. */
export interface Lock {
  readonly name: string
  /** The mode requested. */
  readonly mode: LockMode
  /** Aborted when the lock is taken from this holder (a steal, a lost lease): stop writing. */
  readonly signal: PlatformAbortSignal
  /** The entry's fencing token: give it to the resource, which refuses older ones. */
  readonly token: number
  /**
   * Whether this holder still holds: also compares the lease's end with the monotonic clock, so
   * a process paused past its lease finds it false (and `signal` aborted) at once.
   */
  readonly held: boolean
  /** Throws the `LeaseLostError` unless `held`: call it before each write, after every `await`. */
  assertHeld(): void
}

export interface LockInfo {
  name: string
  mode: LockMode
  clientId: string
}

export interface LockManagerSnapshot {
  held: LockInfo[]
  pending: LockInfo[]
  /**
   * Present for a cluster-wide view (an algorithm marked `'query'`): the term of the coordinator
   * that answered; `recovering`: it does not know every holder yet (the view is incomplete);
   * `truncated`: resources past the answer's size bound were left out.
   */
  cluster?: { term: number; recovering: boolean; truncated: boolean }
}

export type LockGrantedCallback<T> = (lock: Lock | null) => T | PromiseLike<T>

/** The Web Locks API (`navigator.locks`) over a distributed lock. */
export interface LockManager extends AsyncDisposableLike {
  request<T>(name: string, callback: LockGrantedCallback<T>): Promise<T>
  request<T>(name: string, options: LockOptions, callback: LockGrantedCallback<T>): Promise<T>
  /**
   * Over an algorithm marked `'query'` (`centralized()`): every node's held and pending locks, as
   * its coordinator saw them at one instant (`clientId` is the node's id), resource by resource;
   * rejects with `LockQueryTimeoutError` when no answer comes within `timeoutMs` (default 2000).
   * Over any other algorithm: this manager's own held and pending requests, in the order made.
   */
  query(options?: LockQueryOptions): Promise<LockManagerSnapshot>
  /** The lock underneath. */
  readonly mutex: Mutex<MutexRequest, unknown>
  /** Closes the lock: pending requests reject, held ones are released. */
  close(): Promise<void>
}

export type LockManagerOptions<Msg> = Omit<MutexOptions<Msg, MutexRequest, unknown>, 'resource'> & {
  /** Names this manager in `query()`; default the node's id. */
  clientId?: string
}

/**
 * `navigator.locks` for a cluster: `request(name, [options,] callback)` holds the lock `name`
 * while the promise `callback` returns is pending, and settles as it does. The Web Locks rules
 * apply (reserved names, the forbidden option pairs, `ifAvailable` giving `null`, a stolen
 * holder's request rejecting with `AbortError`); `ifAvailable` and `steal` need an algorithm
 * that honours them (`lockFeaturesOf`), else the request rejects with `UnsupportedLockFeatureError`.
 */
export function createLockManager<Msg>(options: LockManagerOptions<Msg>): LockManager {
  const mutex = createMutex(options as MutexOptions<unknown, MutexRequest, MutexEvent>) as Mutex<
    MutexRequest,
    unknown
  >
  const clientId = options.clientId ?? String(mutex.self)
  const held = new Set<LockInfo>()
  const pending = new Set<LockInfo>()
  const clusterWide = lockFeaturesOf(options.algorithm).includes('query')
  const timers = options.timers ?? realTimers
  let queries = 0

  const request = async <T>(
    name: string,
    second: LockOptions | LockGrantedCallback<T>,
    third?: LockGrantedCallback<T>,
  ): Promise<T> => {
    const [opts, callback] = typeof second === 'function' ? [{}, second] : [second ?? {}, third]
    if (typeof callback !== 'function') throw new TypeError('request: callback must be a function')
    const refusal = refusalOf(name, opts)
    if (refusal !== undefined) throw refusal
    const mode = opts.mode ?? 'exclusive'
    const info: LockInfo = { name, mode, clientId }
    pending.add(info)
    let handle: Awaited<ReturnType<typeof mutex.acquire>>
    try {
      handle = await mutex.acquire({
        resource: name,
        mode,
        ...(opts.ifAvailable === true ? { ifAvailable: true } : {}),
        ...(opts.steal === true ? { steal: true } : {}),
        ...(opts.signal === undefined ? {} : { signal: opts.signal }),
      })
    } catch (error) {
      if (isSdError(error, 'ERR_LOCK_UNAVAILABLE')) return await callback(null)
      // Aborted while waiting: rejects with the signal's reason, as a browser does.
      if (isSdError(error, 'ERR_MUTEX_ABORTED')) throw error.cause
      throw error
    } finally {
      pending.delete(info)
    }
    held.add(info)
    const lock: Lock = {
      name,
      mode,
      signal: handle.signal,
      token: handle.token,
      get held() {
        return handle.held
      },
      assertHeld: () => handle.assertHeld(),
    }
    return new Promise<T>((resolve, reject) => {
      void handle.lost.then((lost) => {
        held.delete(info)
        reject(new LockAbortError(name, lost))
      })
      const settle = async (outcome: () => void) => {
        held.delete(info)
        await handle.release()
        outcome()
      }
      Promise.resolve()
        .then(() => callback(lock))
        .then(
          (value) => settle(() => resolve(value)),
          (error) => settle(() => reject(error)),
        )
    })
  }

  const inflight = new Set<(error: unknown) => void>()
  const close = () => {
    for (const cancel of [...inflight]) cancel(new LockManagerClosedError())
    return mutex.close()
  }
  return {
    request: request as LockManager['request'],
    async query(queryOptions: LockQueryOptions = {}) {
      if (clusterWide && !mutex.closed) {
        return queryCluster(mutex, timers, `${clientId}#${++queries}`, queryOptions, inflight)
      }
      return {
        held: [...held].map((i) => ({ ...i })),
        pending: [...pending].map((i) => ({ ...i })),
      }
    },
    mutex,
    close,
    [asyncDispose]: close,
  }
}
