import type { NodeId } from './ids.js'
import type { StableStorage } from './storage/types.js'
import type { TransportSignal } from './transport.js'

/**
 * What a protocol may do. It is the protocol's only window on the world:
 * no sockets, no real timers, no wall clock, no Math.random.
 */
export interface Ctx<Msg, Ev = never> {
  readonly self: NodeId
  /** The other members, ascending by id. */
  readonly peers: readonly NodeId[]
  /**
   * This node's wall clock in ms (in the simulator: virtual time with this node's offset and
   * drift). It can step, forwards or back (NTP, an operator, the simulator's `stepClock`): use it
   * for timestamps, never to time a duration.
   */
  now(): number
  /**
   * This node's monotonic clock in ms, from an arbitrary origin: it never steps, and runs at the
   * rate of the node's oscillator (within the drift bound the protocol assumes). Leases, timeouts
   * and failure detection compare its readings, and timers run on it. A reading is only
   * comparable with other readings of the same node and incarnation.
   */
  monotonic(): number
  send(to: NodeId, msg: Msg): void
  /** Sends to every peer (not to self). */
  broadcast(msg: Msg): void
  /** Sets (or replaces) the one-shot timer `key` to fire in `ms` of local time. */
  setTimer(key: string, ms: number): void
  cancelTimer(key: string): void
  /** Seeded uniform number in [0, 1). */
  random(): number
  /** Publishes an observable event (recorded in the simulator's trace). */
  emit(event: Ev): void
  /**
   * Stable storage: survives a crash and restart of this node (in the simulator by default; with a
   * file store in real processes). Writes become durable when the handler returns; everything the
   * handler sends or emits is held until then, so nothing leaves the node that a crash could make
   * it forget, and a handler that throws sends nothing.
   */
  readonly storage: StableStorage
}

/** A pure state machine: inputs in, effects out through `ctx`. */
export interface Protocol<Msg, Req = never, Ev = never> {
  start?(ctx: Ctx<Msg, Ev>): void
  onMessage(from: NodeId, msg: Msg, ctx: Ctx<Msg, Ev>): void
  onTimer?(key: string, ctx: Ctx<Msg, Ev>): void
  onRequest?(req: Req, ctx: Ctx<Msg, Ev>): void
  onSignal?(signal: TransportSignal, ctx: Ctx<Msg, Ev>): void
  /**
   * The instance's whole volatile state as plain data (objects, arrays, strings, finite numbers,
   * booleans, null; a Map or Set as a sorted array), for stateful exploration. Canonical: equal
   * states give equal snapshots, whatever the order things were inserted in. Complete: two
   * instances with equal snapshots (and equal stable storage, which the runtime reads itself)
   * behave alike from here on. `checkSnapshots` in `@sd/transport/testing` tests both.
   */
  snapshot?(): unknown
  /**
   * Makes this instance, fresh from the factory and not started, take on a state `snapshot()`
   * gave (a copy: it may keep it). It must then behave alike the instance that took the snapshot,
   * on the same inputs (with the same stable storage); `start` is not called on it. Optional: with
   * it, the explorer branches from a saved state instead of replaying the schedule that led
   * there. `checkSnapshots` in `@sd/transport/testing` tests it too.
   */
  restore?(snapshot: unknown): void
  /**
   * True when `restore` only reads the snapshot it is given: it keeps no object of it and changes
   * none (it copies what it keeps into Maps, Sets and arrays of its own). The simulator then hands
   * it the checkpoint's saved copy instead of a fresh copy on every restore (the stateful explorer
   * restores state after state). `checkSnapshots` tests the promise: the snapshot given must come
   * out unchanged however the restored instance runs on.
   */
  readonly restoreCopies?: boolean
  /**
   * True when every object `snapshot()` returns is made for it, and the instance never changes
   * one afterwards (it holds none of them). The simulator then keeps the snapshot itself as a
   * checkpoint's saved state, instead of a copy of it. `checkSnapshots` tests the promise: a
   * snapshot must read the same however the instance runs on after taking it.
   */
  readonly snapshotCopies?: boolean
}

/** Builds a fresh instance (with fresh volatile state) for a node, e.g. after a restart. */
export type ProtocolFactory<Msg, Req = never, Ev = never> = (self: NodeId) => Protocol<Msg, Req, Ev>

/** What a protocol handler is handling (runtimes report it to hosts, e.g. the simulator's fault plans). */
export type ProtocolInput<Msg = unknown, Req = unknown> =
  | { kind: 'start' }
  | { kind: 'message'; from: NodeId; msg: Msg }
  | { kind: 'timer'; key: string }
  | { kind: 'request'; req: Req }
  | { kind: 'signal'; signal: TransportSignal }
