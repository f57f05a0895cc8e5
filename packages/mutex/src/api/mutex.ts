import {
  type AsyncDisposableLike,
  asyncDispose,
  isNodeId,
  type NodeId,
  type ProtocolHandle,
  realTimers,
  runProtocol,
  systemClock,
  type TimerHandle,
} from '@sd/transport'
import { DEFAULT_RESOURCE, type MutexEvent, type MutexRequest } from '../contract.js'
import { CoordinatorUnreachableError, MutexAbortedError, MutexTimeoutError } from '../errors.js'
import { fieldOf } from '../fields.js'
import { MutexClosedError } from './errors.js'
import { Lease, type MutexHandle } from './handle.js'
import { type AcquireOptions, checkResource, checkTimeout, type MutexOptions } from './options.js'

/** A distributed lock for application code, over any algorithm of this package. */
export interface Mutex<Req, Ev> extends AsyncDisposableLike {
  readonly self: NodeId
  /** Resolves once this node entered the critical section; acquires of one lock are served in order. */
  acquire(options?: AcquireOptions): Promise<MutexHandle>
  /** Acquires, runs `fn`, releases (also when `fn` throws). A lease lost meanwhile: `LeaseLostError`. */
  runExclusive<T>(fn: (handle: MutexHandle) => T | Promise<T>, options?: AcquireOptions): Promise<T>
  /** Listens to every event of the protocol. */
  onEvent(listener: (event: Ev) => void): () => void
  /** The running protocol, for its other requests (a coordinator change); acquire through the lock. */
  readonly protocol: ProtocolHandle<Req, Ev>
  readonly closed: boolean
  /** Releases what is held, rejects pending acquires (`MutexClosedError`), stops the protocol. */
  close(): Promise<void>
}

interface Waiter {
  resource: string
  since: number
  resolve(handle: MutexHandle): void
  reject(error: unknown): void
  /** Clears its timer and signal listener. */
  cleanup(): void
}

/**
 * One resource as this node's lock sees it. At most one protocol acquire is in flight per
 * resource: the protocol cannot take an acquire back, so a grant nobody waits for any more is
 * given to the next waiter, or released at once.
 */
interface Slot {
  state: 'idle' | 'asking' | 'held' | 'releasing'
  token: number
  holder: Lease | undefined
  waiters: Waiter[]
}

/**
 * Runs `algorithm` on `transport` with `runProtocol` and turns its `acquired` / `released` events
 * into promises and handles. The protocol stops at `close()`; the transport stays open.
 */
export function createMutex<Msg, Req, Ev>(options: MutexOptions<Msg, Req, Ev>): Mutex<Req, Ev>
/** An algorithm chosen at run time (`ra ? ricartAgrawala() : centralized()`): see `MutexAlgorithm`. */
export function createMutex(
  options: MutexOptions<unknown, MutexRequest, MutexEvent>,
): Mutex<MutexRequest, MutexEvent>
// The lock sends the contract's requests (`Req | MutexRequest`: every algorithm takes them), and
// reads the events it cares about field by field, whatever `Ev` is.
export function createMutex<Msg, Req, Ev>(
  options: MutexOptions<Msg, Req | MutexRequest, Ev>,
): Mutex<Req | MutexRequest, Ev> {
  // Time and timers come from the runtime, as for every protocol: real ones unless given others.
  const clock = options.clock ?? systemClock
  const timers = options.timers ?? realTimers
  const defaultResource = checkResource(options.resource ?? DEFAULT_RESOURCE, 'createMutex')
  const slots = new Map<string, Slot>()
  const listeners = new Set<(event: Ev) => void>()
  if (options.onEvent) listeners.add(options.onEvent)
  let closed = false
  let failure: unknown
  let running = false
  let again = false

  const slotOf = (resource: string): Slot => {
    let slot = slots.get(resource)
    if (slot === undefined) {
      slot = { state: 'idle', token: 0, holder: undefined, waiters: [] }
      slots.set(resource, slot)
    }
    return slot
  }

  const fail = (error: unknown) => {
    if (failure === undefined) failure = error
    for (const slot of slots.values()) {
      for (const w of slot.waiters.splice(0)) {
        w.cleanup()
        w.reject(error)
      }
      slot.holder?.done()
      slot.holder = undefined
    }
  }

  /**
   * Brings the protocol in line with what callers want: releases entries nobody holds any more,
   * asks for resources somebody waits for. Runs outside the protocol's handlers (in a microtask),
   * since a protocol may emit in the middle of one.
   */
  const reconcile = () => {
    if (running) {
      again = true
      return
    }
    running = true
    try {
      do {
        again = false
        for (const [resource, slot] of slots) {
          if (closed || failure !== undefined) return
          if (slot.state === 'held' && (slot.holder === undefined || slot.holder.releasing)) {
            slot.state = 'releasing'
            request({ type: 'release', resource })
          }
          if (slot.state === 'idle' && slot.waiters.length > 0) {
            slot.state = 'asking'
            request({ type: 'acquire', resource })
          }
        }
      } while (again)
    } finally {
      running = false
    }
  }
  let scheduled = false
  const schedule = () => {
    if (scheduled) return
    scheduled = true
    // After the current call stack, never inside a protocol handler.
    void Promise.resolve().then(() => {
      scheduled = false
      reconcile()
    })
  }

  const request = (req: MutexRequest) => {
    try {
      handle.request(req)
    } catch (error) {
      fail(error)
    }
  }

  const onProtocolEvent = (event: Ev) => {
    // Any algorithm's events, read field by field: only what the lock acts on.
    const type = fieldOf(event, 'type')
    const token = fieldOf(event, 'token')
    const named = fieldOf(event, 'resource')
    const resource = typeof named === 'string' ? named : undefined
    const slot = resource === undefined ? undefined : slots.get(resource)
    if (type === 'acquired' && slot !== undefined && typeof token === 'number') {
      if (slot.state === 'asking') {
        slot.state = 'held'
        slot.token = token
        const waiter = slot.waiters.shift()
        if (waiter === undefined)
          schedule() // a late grant: nobody waits, give it back at once
        else {
          waiter.cleanup()
          slot.holder = new Lease(resource!, token, schedule)
          waiter.resolve(slot.holder)
        }
      }
    } else if (type === 'released' && slot !== undefined && token === slot.token) {
      if (slot.state === 'held' || slot.state === 'releasing') {
        slot.state = 'idle'
        // Released without being asked to (a lease lost): the holder holds nothing any more.
        slot.holder?.lose()
        slot.holder = undefined
        schedule()
      }
    } else if (type === 'lease-lost' && slot?.holder?.token === token) {
      slot!.holder!.lose()
    } else if (type === 'coordinator-unreachable') {
      const id = fieldOf(event, 'coordinator')
      const coordinator = isNodeId(id) ? id : String(id)
      for (const s of slots.values()) {
        for (const w of s.waiters.splice(0)) {
          w.cleanup()
          w.reject(new CoordinatorUnreachableError(coordinator, clock.now() - w.since))
        }
      }
    }
    for (const listener of listeners) listener(event)
  }

  const handle = runProtocol(options.algorithm(options.transport.self), {
    transport: options.transport,
    members: options.members,
    clock,
    timers,
    ...(options.storage === undefined ? {} : { storage: options.storage }),
    onEvent: onProtocolEvent,
    onError: (error) => fail(error),
  })

  const acquire = (opts: AcquireOptions = {}): Promise<MutexHandle> => {
    const resource = checkResource(opts.resource ?? defaultResource, 'acquire')
    const timeoutMs = checkTimeout(opts.timeoutMs)
    if (closed) return Promise.reject(new MutexClosedError(resource))
    if (failure !== undefined) return Promise.reject(failure)
    const { signal } = opts
    if (signal?.aborted) return Promise.reject(new MutexAbortedError(resource, signal.reason))
    return new Promise<MutexHandle>((resolve, reject) => {
      const slot = slotOf(resource)
      let timer: TimerHandle | undefined
      // A waiter that gives up leaves the queue; a grant that still comes goes to the next one.
      const giveUp = (error: unknown) => {
        const at = slot.waiters.indexOf(waiter)
        if (at < 0) return
        slot.waiters.splice(at, 1)
        waiter.cleanup()
        reject(error)
      }
      const onAbort = () => giveUp(new MutexAbortedError(resource, signal!.reason))
      const waiter: Waiter = {
        resource,
        since: clock.now(),
        resolve,
        reject,
        cleanup() {
          if (timer !== undefined) timers.cancel(timer)
          signal?.removeEventListener('abort', onAbort)
        },
      }
      slot.waiters.push(waiter)
      if (timeoutMs !== undefined) {
        timer = timers.schedule(timeoutMs, () => giveUp(new MutexTimeoutError(resource, timeoutMs)))
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      schedule()
    })
  }

  const close = async (): Promise<void> => {
    if (closed) return
    for (const [resource, slot] of slots) {
      for (const w of slot.waiters.splice(0)) {
        w.cleanup()
        w.reject(new MutexClosedError(resource))
      }
      // The handle first: the `released` that follows is then not taken for a lost lease.
      slot.holder?.done()
      slot.holder = undefined
      if ((slot.state === 'held' || slot.state === 'releasing') && failure === undefined) {
        request({ type: 'release', resource })
      }
    }
    closed = true
    handle.stop()
  }

  return {
    self: handle.self,
    acquire,
    async runExclusive(fn, opts) {
      const h = await acquire(opts)
      try {
        const result = await fn(h)
        if (h.signal.aborted) throw h.signal.reason // the LeaseLostError
        return result
      } finally {
        await h.release()
      }
    },
    onEvent(listener) {
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
      }
    },
    protocol: handle,
    get closed() {
      return closed
    },
    close,
    [asyncDispose]: close,
  }
}
