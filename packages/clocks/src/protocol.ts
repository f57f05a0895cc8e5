import type { NodeId } from './ids.js'

/**
 * The window a protocol has on the world, declared structurally with the same shape as `Ctx` of
 * `@sd/transport`, so a clocks protocol runs on that runtime (or the simulator) without this
 * package depending on it. Embed the protocols in your own loop by providing these methods.
 */
export interface ProtocolContext<Msg, Ev = never> {
  readonly self: NodeId
  /** The other members, ascending by id. */
  readonly peers: readonly NodeId[]
  /** The local clock in ms. */
  now(): number
  send(to: NodeId, msg: Msg): void
  /** Sends to every peer (not to self). */
  broadcast(msg: Msg): void
  setTimer(key: string, ms: number): void
  cancelTimer(key: string): void
  /** Seeded uniform number in [0, 1). */
  random(): number
  /** Publishes an observable event. */
  emit(event: Ev): void
}

/** A pure state machine: inputs in, effects out through `ctx` (same shape as `Protocol` of `@sd/transport`). */
export interface ClockProtocol<Msg, Req = never, Ev = never> {
  start?(ctx: ProtocolContext<Msg, Ev>): void
  onMessage(from: NodeId, msg: Msg, ctx: ProtocolContext<Msg, Ev>): void
  onTimer?(key: string, ctx: ProtocolContext<Msg, Ev>): void
  onRequest?(req: Req, ctx: ProtocolContext<Msg, Ev>): void
  /** The node's whole volatile state as canonical plain data (same contract as `Protocol.snapshot` of `@sd/transport`). */
  snapshot?(): unknown
  /** Takes on a state `snapshot()` gave, in a fresh instance (same contract as `Protocol.restore` of `@sd/transport`). */
  restore?(snapshot: unknown): void
}

/** Builds a fresh instance for a node (what `SimNetwork.launch` takes). */
export type ClockProtocolFactory<Msg, Req = never, Ev = never> = (
  self: NodeId,
) => ClockProtocol<Msg, Req, Ev>
