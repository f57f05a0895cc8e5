import { type AsyncDisposableLike, asyncDispose, isSdError } from '@sd/transport'
import type { LockMode, MutexEvent, MutexRequest } from '../../contract.js'
import { createMutex, type Mutex } from '../mutex.js'
import type { MutexOptions } from '../options.js'
import type { PlatformAbortSignal } from '../signal.js'
import { LockAbortError } from './errors.js'
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
}

export interface LockInfo {
  name: string
  mode: LockMode
  clientId: string
}

export interface LockManagerSnapshot {
  held: LockInfo[]
  pending: LockInfo[]
}

export type LockGrantedCallback<T> = (lock: Lock | null) => T | PromiseLike<T>

/** The Web Locks API (`navigator.locks`) over a distributed lock. */
export interface LockManager extends AsyncDisposableLike {
  request<T>(name: string, callback: LockGrantedCallback<T>): Promise<T>
  request<T>(name: string, options: LockOptions, callback: LockGrantedCallback<T>): Promise<T>
  /**
   * This manager's held and pending requests (this node only: the algorithms do not tell one
   * node what another holds or waits for), in the order they were made.
   */
  query(): Promise<LockManagerSnapshot>
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
    const lock: Lock = { name, mode, signal: handle.signal, token: handle.token }
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

  const close = () => mutex.close()
  return {
    request: request as LockManager['request'],
    async query() {
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
