import {
  InvalidArgumentError,
  type ProtocolError,
  ProtocolError as ProtocolErrorClass,
  ProtocolStoppedError,
  UnknownNodeError,
} from '../errors.js'
import { compareNodeIds, type NodeId } from '../ids.js'
import type { Ctx, Protocol, ProtocolInput } from '../protocol.js'
import { createRandom } from '../random.js'
import { MemoryStorage } from '../storage/memory.js'
import { StagedStorage } from '../storage/staged.js'
import type { StorageBackend } from '../storage/types.js'
import type { Transport, TransportSignal, Unsubscribe } from '../transport.js'
import {
  type Clock,
  monotonicClock,
  realTimers,
  systemClock,
  type TimerHandle,
  type TimerScheduler,
} from './time.js'

/** Hooks through which a host (the simulator's trace, a debugger) sees every effect. */
export interface RuntimeObserver<Msg, Req, Ev> {
  onTimerSet?(node: NodeId, key: string, ms: number): void
  onTimerFire?(node: NodeId, key: string): void
  onTimerCancel?(node: NodeId, key: string): void
  onRequest?(node: NodeId, req: Req): void
  onEmit?(node: NodeId, event: Ev): void
  onSend?(node: NodeId, to: NodeId, msg: Msg): void
  /**
   * After `onSend`: the transport could not reach `to` (`UnknownNodeError`), so `msg` was dropped;
   * the protocol hears of it through an `unknown-peer` signal.
   */
  onUnreachable?(node: NodeId, to: NodeId, msg: Msg): void
  /** Before each handler runs: what it is about to handle. */
  onInput?(node: NodeId, input: ProtocolInput<Msg, Req>): void
}

export interface RunProtocolOptions<Msg, Req, Ev> {
  transport: Transport<Msg>
  /** Every member of the group; `self` may be included, it is removed from `ctx.peers`. */
  members: readonly NodeId[]
  /** The wall clock `ctx.now()` reads. Default: `Date.now()`. */
  clock?: Clock
  /** The monotonic clock `ctx.monotonic()` reads. Default: `performance.now()`. */
  monotonic?: Clock
  /** Where timers run; they measure durations, so on a monotonic clock. Default: `setTimeout`. */
  timers?: TimerScheduler
  /** Seed or source for `ctx.random()`. Defaults to a random seed. */
  random?: number | string | (() => number)
  observer?: RuntimeObserver<Msg, Req, Ev>
  /**
   * Where `ctx.storage` lives. Default: a fresh `MemoryStorage`, so nothing survives the process
   * (nor this handle: pass the same store to the next `runProtocol` to keep it across instances).
   * For state that must survive a process crash, `openFileStorage` of `@sd/transport/storage-file`.
   */
  storage?: StorageBackend
  /** Attached before `start` runs, so events emitted by `start` are seen. */
  onEvent?: (event: Ev) => void
  /** Attached before `start` runs; see `ProtocolHandle.onError`. */
  onError?: (error: ProtocolError) => void
  /**
   * The instance was restored (`Protocol.restore`), not started: `start` does not run, and these
   * timers, which the restored state had pending, are armed again (the scheduler decides when
   * they are due; the simulator's checkpoints keep that).
   */
  resume?: { timers: readonly string[] }
}

export interface ProtocolHandle<Req, Ev> {
  readonly self: NodeId
  readonly stopped: boolean
  /** Feeds a local request (acquire, start election...) to the protocol. */
  request(req: Req): void
  onEvent(listener: (event: Ev) => void): Unsubscribe
  /**
   * Listens for a protocol that threw. The instance is stopped first.
   * With no listener the error is thrown to whoever delivered the input, so it is never silent.
   */
  onError(listener: (error: ProtocolError) => void): Unsubscribe
  /** Cancels every timer and detaches from the transport (which stays open). Idempotent. */
  stop(): void
}

/** Connects a pure protocol to a transport, a clock and timers, and carries out its effects. */
export function runProtocol<Msg, Req = never, Ev = never>(
  initial: Protocol<Msg, Req, Ev>,
  options: RunProtocolOptions<Msg, Req, Ev>,
): ProtocolHandle<Req, Ev> {
  let protocol = initial
  const { transport, observer } = options
  const self = transport.self
  const clock = options.clock ?? systemClock
  const monotonic = options.monotonic ?? monotonicClock
  const timers = options.timers ?? realTimers
  const random = randomSource(options.random)
  // Built on first use: a protocol that never asks costs nothing, and launching n nodes does not
  // build n sorted copies of n ids up front (10,000 nodes took 13 s and 800 MB that way).
  let peerList: readonly NodeId[] | undefined
  const peers = () =>
    (peerList ??= Object.freeze(
      [...new Set(options.members)].filter((id) => id !== self).sort(compareNodeIds),
    ))
  const pending = new Map<string, TimerHandle>()
  const eventListeners = new Set<(event: Ev) => void>()
  const errorListeners = new Set<(error: ProtocolError) => void>()
  const storage = new StagedStorage(options.storage ?? new MemoryStorage())
  let stopped = false
  /**
   * Sends and emits of the running handler: none leaves before the handler returned and its writes
   * committed, so a step takes effect whole or not at all (etcd raft's Ready / Advance). Undefined
   * outside a handler.
   */
  let held: Held | undefined
  /** The outputs buffer of the last step, reused by the next (a nested step makes its own). */
  let spare: Held | undefined

  /**
   * Carries out one output. A send to an id the transport cannot reach (one a peer told about, or
   * invented) is dropped and false returned, never thrown: input from the network must not be able
   * to stop the node.
   */
  const release = (to: NodeId | typeof EMIT, value: unknown): boolean => {
    if (to !== EMIT) {
      const msg = value as Msg
      observer?.onSend?.(self, to, msg)
      try {
        transport.send(to, msg)
      } catch (error) {
        if (!(error instanceof UnknownNodeError)) throw error
        observer?.onUnreachable?.(self, to, msg)
        return false
      }
    } else {
      const event = value as Ev
      observer?.onEmit?.(self, event)
      for (const listener of eventListeners) listener(event)
    }
    return true
  }
  const output = (to: NodeId | typeof EMIT, value: unknown) => {
    if (held === undefined) {
      throw new InvalidArgumentError(
        'ctx.send, ctx.broadcast and ctx.emit work only while a handler runs (a ctx kept for later is stale)',
      )
    }
    held.items[held.count++] = to
    held.items[held.count++] = value
  }

  const arm = (key: string, ms: number) => {
    const handle: TimerHandle = timers.schedule(
      ms,
      () => {
        // A scheduler may still fire a timer that was replaced or cancelled (one held while its
        // node was paused): only the timer now set under `key` counts.
        if (pending.get(key) !== handle) return
        pending.delete(key)
        if (stopped) return
        observer?.onTimerFire?.(self, key)
        step({ kind: 'timer', key })
      },
      key,
    )
    pending.set(key, handle)
  }

  const ctx: Ctx<Msg, Ev> = {
    self,
    get peers() {
      return peers()
    },
    now: () => clock.now(),
    monotonic: () => monotonic.now(),
    send: (to, msg) => output(to, msg),
    broadcast(msg) {
      // Indexed: `for...of` made an iterator result per peer here (37 B a delivery in all-to-all).
      const list = peers()
      for (let i = 0; i < list.length; i++) output(list[i]!, msg)
    },
    setTimer(key, ms) {
      if (!(ms >= 0) || !Number.isFinite(ms)) {
        throw new InvalidArgumentError(
          `timer ${JSON.stringify(key)}: delay must be a finite number >= 0, got ${ms}`,
        )
      }
      const old = pending.get(key)
      if (old !== undefined) timers.cancel(old)
      observer?.onTimerSet?.(self, key, ms)
      arm(key, ms)
    },
    cancelTimer(key) {
      const handle = pending.get(key)
      if (handle === undefined) return
      pending.delete(key)
      timers.cancel(handle)
      observer?.onTimerCancel?.(self, key)
    },
    random,
    emit: (event) => output(EMIT, event),
    storage,
  }

  const stop = () => {
    if (stopped) return
    stopped = true
    for (const handle of pending.values()) timers.cancel(handle)
    pending.clear()
    offMessage()
    offSignal?.()
  }

  /** Calls the handler `input` is for (a switch, not a closure made per message). */
  const dispatch = (input: ProtocolInput<Msg, Req>): void => {
    switch (input.kind) {
      case 'message':
        protocol.onMessage(input.from, input.msg, ctx)
        return
      case 'timer':
        protocol.onTimer?.(input.key, ctx)
        return
      case 'request':
        protocol.onRequest?.(input.req, ctx)
        return
      case 'signal':
        protocol.onSignal?.(input.signal, ctx)
        return
      case 'start':
        protocol.start?.(ctx)
    }
  }

  /**
   * Runs one handler as a step: its writes commit when it returns, then its sends and emits leave,
   * in the order it made them. A handler that throws (or a commit that fails) commits and releases
   * nothing, and stops the instance. Sends to unreachable ids are then told to the protocol, one
   * `unknown-peer` signal per id, unless this step handles such a signal (`tellUnknown` false):
   * a protocol answering each with another such send must not loop.
   */
  const step = (input: ProtocolInput<Msg, Req>, tellUnknown = true) => {
    observer?.onInput?.(self, input)
    // A handler may start inside another's release (an event listener making a request): keep
    // their writes and outputs apart.
    const outerWrites = storage.suspend()
    const outerHeld = held
    const outputs = spare ?? { items: [], count: 0 }
    spare = undefined
    held = outputs
    try {
      dispatch(input)
      if (stopped) storage.discard()
      else storage.commit() // may throw: a full disk, or the simulator crashing the node here
    } catch (cause) {
      storage.discard()
      held = outerHeld
      storage.resume(outerWrites)
      const error = new ProtocolErrorClass(self, input.kind, describe(input), cause)
      stop()
      if (errorListeners.size === 0) throw error
      for (const listener of errorListeners) listener(error)
      return
    }
    held = outerHeld
    storage.resume(outerWrites)
    // Sends dropped for an unreachable id, counted per id (made only when one was).
    let unreachable: Map<NodeId, number> | undefined
    const items = outputs.items
    const count = outputs.count
    outputs.count = 0
    for (let i = 0; i < count; i += 2) {
      const to = items[i] as NodeId | typeof EMIT
      const value = items[i + 1]
      items[i + 1] = undefined // holds no message for longer
      if (stopped) continue
      if (!release(to, value) && to !== EMIT) {
        unreachable ??= new Map()
        unreachable.set(to, (unreachable.get(to) ?? 0) + 1)
      }
    }
    spare = outputs
    if (unreachable === undefined || !tellUnknown || protocol.onSignal === undefined) return
    for (const [peer, dropped] of unreachable) {
      if (stopped) return
      const signal: TransportSignal = { type: 'unknown-peer', peer, dropped }
      step({ kind: 'signal', signal }, false)
    }
  }

  const offMessage = transport.onMessage((from, msg) => {
    if (stopped) return
    step({ kind: 'message', from, msg })
  })
  const offSignal = transport.onSignal?.((signal: TransportSignal) => {
    if (stopped) return
    step({ kind: 'signal', signal })
  })

  const handle: ProtocolHandle<Req, Ev> = {
    self,
    get stopped() {
      return stopped
    },
    request(req) {
      if (stopped) throw new ProtocolStoppedError(self)
      observer?.onRequest?.(self, req)
      step({ kind: 'request', req })
    },
    onEvent(listener) {
      eventListeners.add(listener)
      return () => eventListeners.delete(listener)
    },
    onError(listener) {
      errorListeners.add(listener)
      return () => errorListeners.delete(listener)
    },
    stop,
  }
  /** Cancels every pending timer. An empty map is left as it is: clearing one allocates. */
  const clearTimers = () => {
    if (pending.size === 0) return
    for (const pendingTimer of pending.values()) timers.cancel(pendingTimer)
    pending.clear()
  }
  rebinders.set(handle, {
    clearTimers,
    rebind(next, keys) {
      if (stopped || held !== undefined)
        throw new InvalidArgumentError('rebind: the runtime is stopped or inside a handler')
      clearTimers()
      storage.reload()
      protocol = next as Protocol<Msg, Req, Ev>
      for (const key of keys) arm(key, 0)
    },
  })
  if (options.onEvent) eventListeners.add(options.onEvent)
  if (options.onError) errorListeners.add(options.onError)
  if (options.resume === undefined) step({ kind: 'start' })
  else for (const key of options.resume.timers) arm(key, 0)
  return handle
}

/** What a ProtocolError says of the input whose handler failed. */
function describe(input: ProtocolInput<unknown, unknown>): string {
  switch (input.kind) {
    case 'message':
      return `from ${JSON.stringify(input.from)}`
    case 'timer':
      return input.key
    case 'request':
      return 'local request'
    case 'signal':
      return input.signal.type
    case 'start':
      return 'start'
  }
}

/**
 * What a host that restores instances (the simulator's checkpoints) does to a running runtime
 * instead of starting another: its timers cancelled, then a restored instance put in the place
 * of its own (as `resume` starts one: `start` not run, these timers armed again), the storage
 * read again from the backend. Listeners, transport subscription and settings stay.
 */
export interface Rebinder {
  clearTimers(): void
  rebind(protocol: Protocol<unknown, unknown, unknown>, timers: readonly string[]): void
}

const rebinders = new WeakMap<object, Rebinder>()

/** The rebinder of a handle `runProtocol` made (see `Rebinder`). */
export function rebinderOf(handle: ProtocolHandle<unknown, unknown>): Rebinder {
  return rebinders.get(handle)!
}

/** Marks an emit among a step's outputs (a send has its receiver's id there). */
const EMIT: unique symbol = Symbol('emit')

/** A step's sends and emits in order, flat, `to, msg` or `EMIT, event`: no object made per output. */
interface Held {
  items: unknown[]
  count: number
}

function randomSource(option: number | string | (() => number) | undefined): () => number {
  if (typeof option === 'function') return option
  const seed = option ?? globalThis.crypto.getRandomValues(new Uint32Array(1))[0]!
  return createRandom(seed).next
}
