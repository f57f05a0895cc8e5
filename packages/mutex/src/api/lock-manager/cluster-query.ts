import type { TimerScheduler } from '@sd/transport'
import type { LockStateEvent, MutexRequest } from '../../contract.js'
import { InvalidArgumentError } from '../../errors.js'
import { fieldOf } from '../../fields.js'
import type { Mutex } from '../mutex.js'
import { MAX_TIMER_MS } from '../options.js'
import { LockQueryTimeoutError } from './errors.js'
import type { LockInfo, LockManagerSnapshot } from './manager.js'

export interface LockQueryOptions {
  /** How long to wait for the coordinator's answer (algorithms marked `'query'`). Default 2000. */
  timeoutMs?: number
}

export const DEFAULT_QUERY_TIMEOUT_MS = 2000

function checkQueryTimeout(ms: unknown): number {
  if (ms === undefined) return DEFAULT_QUERY_TIMEOUT_MS
  if (typeof ms !== 'number' || !(ms > 0) || ms > MAX_TIMER_MS) {
    throw new InvalidArgumentError(
      `query: timeoutMs must be a number in (0, ${MAX_TIMER_MS}], got ${String(ms)}`,
    )
  }
  return ms
}

/** The Web Locks snapshot of a `lock-state`: holders, then waiting requests, resource by resource. */
export function snapshotOf(state: LockStateEvent): LockManagerSnapshot {
  const held: LockInfo[] = []
  const pending: LockInfo[] = []
  for (const r of state.resources) {
    for (const h of r.holders)
      held.push({ name: r.resource, mode: h.mode, clientId: String(h.node) })
    for (const q of r.queue)
      pending.push({ name: r.resource, mode: q.mode, clientId: String(q.node) })
  }
  const { term, recovering, truncated } = state
  return { held, pending, cluster: { term, recovering, truncated } }
}

/**
 * Asks the algorithm (marked `'query'`) for the cluster's locks and waits for the `lock-state`
 * answering this `id`; rejects with `LockQueryTimeoutError` when none comes within the timeout.
 */
export function queryCluster(
  mutex: Mutex<MutexRequest, unknown>,
  timers: TimerScheduler,
  id: string,
  options: LockQueryOptions,
  /** The manager's queries in flight: `close()` ends each with `LockManagerClosedError`. */
  inflight: Set<(error: unknown) => void>,
): Promise<LockManagerSnapshot> {
  const timeoutMs = checkQueryTimeout(options.timeoutMs)
  return new Promise((resolve, reject) => {
    const unlisten = mutex.onEvent((event) => {
      if (fieldOf(event, 'type') !== 'lock-state' || fieldOf(event, 'id') !== id) return
      stop()
      resolve(snapshotOf(event as LockStateEvent))
    })
    const cancel = (error: unknown) => {
      stop()
      reject(error)
    }
    const stop = () => {
      unlisten()
      timers.cancel(timer)
      inflight.delete(cancel)
    }
    inflight.add(cancel)
    const timer = timers.schedule(timeoutMs, () => cancel(new LockQueryTimeoutError(timeoutMs)))
    try {
      // The contract's query request: the lock's protocol handle is typed for acquires only.
      mutex.protocol.request({ type: 'query', id } as unknown as MutexRequest)
    } catch (error) {
      cancel(error)
    }
  })
}
