/**
 * An election for application code: runs any algorithm of this package on a transport and keeps
 * what its `leader` / `leader-lost` events say, as `leader()`, `term()` and change callbacks.
 */
import {
  type AsyncDisposableLike,
  asyncDispose,
  type Clock,
  isNodeId,
  type NodeId,
  type ProtocolFactory,
  type ProtocolHandle,
  realTimers,
  runProtocol,
  type StorageBackend,
  systemClock,
  type TimerScheduler,
  type Transport,
} from '@sd/transport'
import type { ElectionRequest } from '../contract.js'
import {
  ElectionAbortedError,
  ElectionClosedError,
  ElectionTimeoutError,
  InvalidArgumentError,
} from '../errors.js'
import { eventFields } from '../event-fields.js'
import { observeLeaders, type ViewSource } from './observe.js'
import { startTransfer } from './transfer.js'
import { type AbortSignalLike, checkWait, type LeaderView, type WaitOptions } from './wait.js'

export type { AbortSignalLike, LeaderView, WaitOptions }

/** What `observe` takes. */
export interface ObserveOptions {
  /** Ends the iteration (done) when aborted. */
  signal?: AbortSignalLike
}

export interface ElectionOptions<Msg, Ev> {
  /** This node's transport (UDP, or a simulator node's): the caller owns it and closes it. */
  transport: Transport<Msg>
  /** The algorithm, as its factory: `bully()`, `majorityElection()`... */
  algorithm: ProtocolFactory<Msg, ElectionRequest, Ev>
  /** Every member of the group, this node included or not. */
  members: readonly NodeId[]
  /** Stable storage (`openFileStorage(path)`): terms never go back, also across restarts. */
  storage?: StorageBackend
  /** Sees every event of the protocol (attached before it starts). */
  onEvent?: (event: Ev) => void
  /**
   * Sees every change of leader, from the first (attached before the protocol starts: a member
   * with no better candidate may win while `createElection` runs).
   */
  onLeaderChange?: (view: LeaderView | undefined) => void
  /** Where time comes from. Default: the system clock. */
  clock?: Clock
  /** Where timers live. Default: real (unref'd) timers. */
  timers?: TimerScheduler
}

export interface Election<Ev> extends AsyncDisposableLike {
  readonly self: NodeId
  /** The leader this node follows now, or undefined (none known, or suspected). */
  leader(): NodeId | undefined
  /** The term of the current leader; with none, the last term this node saw (0 before any). */
  term(): number
  isLeader(): boolean
  /**
   * Called with the new view on every change after it is attached (undefined: no leader trusted
   * any more). Read `leader()` for the view so far, or pass `onLeaderChange` to `createElection`.
   */
  onLeaderChange(listener: (view: LeaderView | undefined) => void): () => void
  /** The current leader, or the next one to be known. */
  waitForLeader(options?: WaitOptions): Promise<LeaderView>
  /** Starts an election now, as if the leader had been suspected. */
  start(): void
  /** Steps down if this node leads (the algorithm announces it and elects another). */
  resign(): void
  /**
   * Hands the leadership over to member `to` (the majority mode; other algorithms reject with
   * `TransferFailedError`, reason `unsupported`) and resolves with `to`'s view once this node
   * follows it. Rejects at once with `NotLeaderError`, `UnknownTargetError`,
   * `TransferInProgressError` (one transfer at a time per handle) or `ElectionClosedError`; later
   * with `TransferFailedError` (`target-silent`, `timeout`, `other-leader`), `ElectionTimeoutError`
   * (`timeoutMs`) or `ElectionAbortedError` (`signal`). To itself: resolves with the current view.
   */
  transferLeadership(to: NodeId, options?: WaitOptions): Promise<LeaderView>
  /**
   * The leader changes as an async iterator (etcd's `Observe`): the current leader if one is
   * known, then every new one in order; no entry while there is none. Ends on `close()` or when
   * `signal` aborts.
   */
  observe(options?: ObserveOptions): AsyncIterableIterator<LeaderView>
  onEvent(listener: (event: Ev) => void): () => void
  /** The running protocol, for requests of its own. */
  readonly protocol: ProtocolHandle<ElectionRequest, Ev>
  readonly closed: boolean
  /** Stops the protocol (the transport stays open) and rejects waits (`ElectionClosedError`). */
  close(): Promise<void>
}

export function createElection<Msg, Ev>(options: ElectionOptions<Msg, Ev>): Election<Ev> {
  if (typeof options.algorithm !== 'function') {
    throw new InvalidArgumentError(
      'createElection: algorithm must be a protocol factory, e.g. bully()',
    )
  }
  const timers = options.timers ?? realTimers
  const clock = options.clock ?? systemClock
  let view: LeaderView | undefined
  let lastTerm = 0
  let closed = false
  const changeListeners = new Set<(view: LeaderView | undefined) => void>()
  const closeListeners = new Set<() => void>()
  const transfer: { to: NodeId | undefined } = { to: undefined }
  if (options.onLeaderChange) changeListeners.add(options.onLeaderChange)
  const waiters = new Set<{
    resolve(v: LeaderView): void
    reject(e: unknown): void
    cleanup(): void
  }>()

  const settle = () => {
    if (view === undefined) return
    const now = view
    for (const w of [...waiters]) {
      w.cleanup()
      w.resolve(now)
    }
  }
  const change = (next: LeaderView | undefined) => {
    const same =
      (next === undefined && view === undefined) ||
      (next !== undefined &&
        view !== undefined &&
        next.leader === view.leader &&
        next.term === view.term)
    if (same) return
    view = next
    for (const listener of [...changeListeners]) listener(next)
    settle()
  }

  const protocol = runProtocol(options.algorithm(options.transport.self), {
    transport: options.transport,
    members: options.members,
    storage: options.storage,
    clock,
    timers,
    onEvent: (event: Ev) => {
      const e = eventFields(event)
      if (e?.type === 'leader' && typeof e.term === 'number' && isNodeId(e.leader)) {
        lastTerm = Math.max(lastTerm, e.term)
        change({ leader: e.leader, term: e.term })
      } else if (e?.type === 'leader-lost' && typeof e.term === 'number') {
        lastTerm = Math.max(lastTerm, e.term)
        if (view !== undefined && view.term <= e.term) change(undefined)
      }
      options.onEvent?.(event)
    },
  })

  const close = async () => {
    if (closed) return
    closed = true
    protocol.stop()
    for (const w of [...waiters]) {
      w.cleanup()
      w.reject(new ElectionClosedError())
    }
    for (const listener of [...closeListeners]) listener()
  }
  const source: ViewSource = {
    current: () => view,
    onChange(listener) {
      changeListeners.add(listener)
      return () => changeListeners.delete(listener)
    },
    onClose(listener) {
      closeListeners.add(listener)
      return () => closeListeners.delete(listener)
    },
    closed: () => closed,
  }

  return {
    self: options.transport.self,
    leader: () => view?.leader,
    term: () => view?.term ?? lastTerm,
    isLeader: () => view !== undefined && view.leader === options.transport.self,
    onLeaderChange(listener) {
      changeListeners.add(listener)
      return () => changeListeners.delete(listener)
    },
    waitForLeader(wait = {}) {
      if (closed) return Promise.reject(new ElectionClosedError())
      const ms = checkWait(wait)
      if (wait.signal?.aborted) return Promise.reject(new ElectionAbortedError(wait.signal.reason))
      if (view !== undefined) return Promise.resolve(view)
      return new Promise<LeaderView>((resolve, reject) => {
        const timer =
          ms === undefined
            ? undefined
            : timers.schedule(ms, () => {
                waiter.cleanup()
                reject(new ElectionTimeoutError(ms))
              })
        const onAbort = () => {
          waiter.cleanup()
          reject(new ElectionAbortedError(wait.signal?.reason))
        }
        const waiter = {
          resolve,
          reject,
          cleanup: () => {
            waiters.delete(waiter)
            if (timer !== undefined) timers.cancel(timer)
            wait.signal?.removeEventListener('abort', onAbort)
          },
        }
        waiters.add(waiter)
        wait.signal?.addEventListener('abort', onAbort, { once: true })
      })
    },
    start() {
      if (closed) throw new ElectionClosedError()
      protocol.request({ type: 'start' })
    },
    resign() {
      if (closed) throw new ElectionClosedError()
      protocol.request({ type: 'resign' })
    },
    transferLeadership(to, wait = {}) {
      return startTransfer(
        { ...source, self: options.transport.self, members: options.members, protocol, timers },
        transfer,
        to,
        wait,
      )
    },
    observe(observeOptions = {}) {
      return observeLeaders(source, observeOptions.signal)
    },
    onEvent(listener) {
      return protocol.onEvent(listener)
    },
    protocol,
    get closed() {
      return closed
    },
    close,
    [asyncDispose]: close,
  }
}
