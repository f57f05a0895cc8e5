import {
  type AsyncDisposableLike,
  asyncDispose,
  isNodeId,
  monotonicClock,
  type NodeId,
  type ProtocolHandle,
  realTimers,
  runProtocol,
  systemClock,
  type TimerHandle,
} from '@sd/transport'
import {
  DEFAULT_RESOURCE,
  entryKind,
  lockFeaturesOf,
  type MutexEvent,
  type MutexRequest,
} from '../contract.js'
import {
  CoordinatorUnreachableError,
  InvalidArgumentError,
  MutexAbortedError,
  MutexTimeoutError,
} from '../errors.js'
import { fieldOf } from '../fields.js'
import { type AcquireAllOptions, acquireAll, type MultiHandle } from './acquire-all.js'
import { LockUnavailableError, MutexClosedError, ReentrancyLimitError } from './errors.js'
import { Lease, type MutexHandle } from './handle.js'
import {
  type AcquireOptions,
  checkCount,
  checkLimits,
  checkPriority,
  checkResource,
  checkTimeout,
  type MutexOptions,
} from './options.js'
import {
  askedOf,
  canJoin,
  enqueue,
  newSlot,
  type Slot,
  satisfies,
  type Waiter,
  type Want,
} from './slot.js'
import { wantOf } from './want.js'

/** A distributed lock for application code, over any algorithm of this package. */
export interface Mutex<Req, Ev> extends AsyncDisposableLike {
  readonly self: NodeId
  /** Resolves once this node entered the critical section; acquires of one lock are served in order. */
  acquire(options?: AcquireOptions): Promise<MutexHandle>
  /** Acquires, runs `fn`, releases (also when `fn` throws). A lease lost meanwhile: `LeaseLostError`. */
  runExclusive<T>(fn: (handle: MutexHandle) => T | Promise<T>, options?: AcquireOptions): Promise<T>
  /**
   * Acquires every resource of `resources`, one after the other in sorted order (so two such
   * calls never wait for each other in a cycle); if one fails, releases those it took and rejects.
   */
  acquireAll(resources: readonly string[], options?: AcquireAllOptions): Promise<MultiHandle>
  /** Listens to every event of the protocol. */
  onEvent(listener: (event: Ev) => void): () => void
  /** The running protocol, for its other requests (a coordinator change); acquire through the lock. */
  readonly protocol: ProtocolHandle<Req, Ev>
  readonly closed: boolean
  /** Releases what is held, rejects pending acquires (`MutexClosedError`), stops the protocol. */
  close(): Promise<void>
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
  const monotonic = options.monotonic ?? monotonicClock
  const defaultResource = checkResource(options.resource ?? DEFAULT_RESOURCE, 'createMutex')
  const slots = new Map<string, Slot>()
  const listeners = new Set<(event: Ev) => void>()
  if (options.onEvent) listeners.add(options.onEvent)
  const features = lockFeaturesOf(options.algorithm)
  const limits = checkLimits(options.permits)
  const reentrancyLimit =
    options.reentrancy === undefined
      ? undefined
      : checkCount(options.reentrancy.limit, 'createMutex: reentrancy.limit')
  let closed = false
  let failure: unknown
  let running = false
  let again = false
  let arrivals = 0

  const slotOf = (resource: string): Slot => {
    let slot = slots.get(resource)
    if (slot === undefined) {
      slot = newSlot()
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
      for (const h of [...slot.holders.splice(0), ...slot.leaving.splice(0)]) h.done()
    }
  }

  /** Hands the held entry to `w` (the first holder, or one joining shared holders). */
  const give = (resource: string, slot: Slot, w: Waiter) => {
    const at = slot.waiters.indexOf(w)
    if (at >= 0) slot.waiters.splice(at, 1)
    w.cleanup()
    const lease = new Lease(
      resource,
      slot.token,
      {
        mode: slot.granted.exclusive ? 'exclusive' : slot.granted.mode,
        permits: slot.granted.permits,
        asked: askedOf(w.want),
        owner: w.owner,
        expired: () => monotonic.now() >= slot.validUntil,
      },
      (l) => leave(slot, l),
    )
    slot.holders.push(lease)
    w.resolve(lease)
  }

  /** Waiters at the head that may share the held entry with its holders join them. */
  const joinHeads = (resource: string, slot: Slot) => {
    while (slot.waiters.length > 0 && canJoin(slot, slot.waiters[0]!.want)) {
      give(resource, slot, slot.waiters[0]!)
    }
  }

  /** A holder released: the entry goes back to the protocol once its last holder released. */
  const leave = (slot: Slot, lease: Lease) => {
    slot.holders = slot.holders.filter((h) => h !== lease)
    if (slot.holders.length > 0) lease.done()
    else {
      slot.leaving.push(lease)
      schedule()
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
          if (slot.state === 'held') {
            const head = slot.waiters[0]
            if (head?.want.steal === true) {
              // A local steal: this node's holders lose the entry, which is asked for again.
              for (const h of slot.holders.splice(0)) h.lose('stolen')
            }
            joinHeads(resource, slot)
            if (slot.holders.length === 0) {
              slot.state = 'releasing'
              request({ type: 'release', resource })
            }
          }
          // An ifAvailable waiter never waits behind another (one may have come first meanwhile).
          for (const w of slot.waiters.slice(1)) {
            if (w.want.ifAvailable) {
              slot.waiters.splice(slot.waiters.indexOf(w), 1)
              w.cleanup()
              w.reject(new LockUnavailableError(resource))
            }
          }
          if (slot.state === 'idle' && slot.waiters.length > 0) {
            const { want } = slot.waiters[0]!
            slot.state = 'asking'
            request({
              type: 'acquire',
              resource,
              ...(want.mode === 'shared' ? { mode: 'shared' as const } : {}),
              ...(want.permits === undefined ? {} : { permits: want.permits }),
              ...(want.ifAvailable ? { ifAvailable: true } : {}),
              ...(want.steal ? { steal: true } : {}),
            })
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
        const leaseMs = fieldOf(event, 'leaseMs') // emitted at once: it counts from now
        slot.validUntil = monotonic.now() + (typeof leaseMs === 'number' ? leaseMs : Infinity)
        const kind = entryKind({ mode: fieldOf(event, 'mode'), permits: fieldOf(event, 'permits') })
        slot.granted = {
          mode: kind.kind === 'shared' ? 'shared' : 'exclusive',
          permits: kind.kind === 'permits' ? { take: kind.take, of: kind.of } : undefined,
          exclusive: kind.kind === 'exclusive',
        }
        const head = slot.waiters[0]
        // A late grant nobody waits for, or one too weak for the head now: given back at once.
        if (head !== undefined && satisfies(slot.granted, head.want)) {
          give(resource!, slot, head)
          joinHeads(resource!, slot)
        }
        schedule()
      }
    } else if (type === 'unavailable' && slot?.state === 'asking') {
      slot.state = 'idle'
      const head = slot.waiters[0]
      if (head?.want.ifAvailable === true) {
        slot.waiters.shift()
        head.cleanup()
        head.reject(new LockUnavailableError(resource!))
      }
      schedule()
    } else if (type === 'released' && slot !== undefined && token === slot.token) {
      if (slot.state === 'held' || slot.state === 'releasing') {
        slot.state = 'idle'
        for (const h of slot.leaving.splice(0)) h.done()
        // Released without being asked to (a lease lost): the holders hold nothing any more.
        for (const h of slot.holders.splice(0)) h.lose()
        schedule()
      }
    } else if (type === 'lease-renewed' && slot?.state === 'held' && token === slot.token) {
      const validForMs = fieldOf(event, 'validForMs')
      if (typeof validForMs === 'number') slot.validUntil = monotonic.now() + validForMs
    } else if (type === 'lease-lost' && slot !== undefined && token === slot.token) {
      const why = fieldOf(event, 'reason')
      const reason = typeof why === 'string' ? why : undefined
      for (const h of slot.holders.splice(0)) h.lose(reason)
      for (const h of slot.leaving.splice(0)) h.done()
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
    monotonic,
    ...(options.storage === undefined ? {} : { storage: options.storage }),
    onEvent: onProtocolEvent,
    onError: (error) => fail(error),
  })

  /** The owner's outermost hold of `resource`, when reentrancy is on and it holds it. */
  const heldBy = (slot: Slot, owner: unknown): Lease | undefined =>
    owner === undefined ? undefined : slot.holders.find((h) => h.info.owner === owner && h.held)

  const acquire = (opts: AcquireOptions = {}): Promise<MutexHandle> => {
    let resource: string
    let want: Want
    let priority: number
    let timeoutMs: number | undefined
    try {
      resource = checkResource(opts.resource ?? defaultResource, 'acquire')
      timeoutMs = checkTimeout(opts.timeoutMs)
      want = wantOf(opts, resource, limits, features)
      priority = checkPriority(opts.priority)
      if (opts.owner !== undefined && reentrancyLimit === undefined) {
        throw new InvalidArgumentError(
          'acquire: owner is for reentrancy: create the lock with createMutex({ reentrancy: { limit } })',
        )
      }
    } catch (error) {
      return Promise.reject(error)
    }
    if (closed) return Promise.reject(new MutexClosedError(resource))
    if (failure !== undefined) return Promise.reject(failure)
    const { signal } = opts
    if (signal?.aborted) return Promise.reject(new MutexAbortedError(resource, signal.reason))
    const slot = slotOf(resource)
    const outer = heldBy(slot, opts.owner)
    if (outer !== undefined) {
      if (
        want.mode === 'exclusive' &&
        want.permits === undefined &&
        outer.info.asked !== 'exclusive'
      ) {
        return Promise.reject(
          new InvalidArgumentError(
            `acquire: the owner holds ${JSON.stringify(resource)} ${outer.info.asked}: it cannot take it exclusive inside that hold`,
          ),
        )
      }
      if (outer.depth >= reentrancyLimit!) {
        return Promise.reject(new ReentrancyLimitError(resource, reentrancyLimit!))
      }
      return Promise.resolve(outer.nest())
    }
    if (want.ifAvailable) {
      // Granted at once or not at all: joins shared holders, or asks an idle protocol.
      const free = slot.waiters.length === 0 && (slot.state === 'idle' || canJoin(slot, want))
      if (!free) return Promise.reject(new LockUnavailableError(resource))
    }
    return new Promise<MutexHandle>((resolve, reject) => {
      let timer: TimerHandle | undefined
      // A waiter that gives up leaves the queue; a grant that still comes goes to the next one.
      const giveUp = (error: unknown) => {
        const at = slot.waiters.indexOf(waiter)
        if (at < 0) return
        slot.waiters.splice(at, 1)
        waiter.cleanup()
        reject(error)
        schedule() // a waiter that blocked shared joins may have left
      }
      const onAbort = () => giveUp(new MutexAbortedError(resource, signal!.reason))
      const waiter: Waiter = {
        resource,
        since: clock.now(),
        want,
        priority,
        seq: ++arrivals,
        owner: opts.owner,
        resolve,
        reject,
        cleanup() {
          if (timer !== undefined) timers.cancel(timer)
          signal?.removeEventListener('abort', onAbort)
        },
      }
      enqueue(slot.waiters, waiter)
      if (canJoin(slot, want) && slot.waiters[0] === waiter) {
        give(resource, slot, waiter)
        return
      }
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
      // The handles first: the `released` that follows is then not taken for a lost lease.
      for (const h of [...slot.holders.splice(0), ...slot.leaving.splice(0)]) h.done()
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
    acquireAll: (resources, opts) => acquireAll(acquire, resources, opts),
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
