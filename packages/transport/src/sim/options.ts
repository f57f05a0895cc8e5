import type { NodeId } from '../ids.js'
import type { Unsubscribe } from '../transport.js'
import type { LinkSettings } from './links.js'

export interface SimNetworkOptions extends LinkSettings {
  /** Same seed, same run: every random choice of the network and of each node derives from it. Default 1. */
  seed?: number | string
  /** Record a trace (default true). Turn off for long runs and benchmarks. */
  trace?: boolean
  /** 'none' (default) hands the sender's object to the receiver; 'json' round-trips it, catching unserializable messages and shared mutation. */
  copyMessages?: 'none' | 'json'
}

export interface RunOptions {
  /** Stop before the first event later than this virtual time, and move the clock to it. */
  until?: number
  /** Give up (SimulationError) after this many events. Default 5,000,000. */
  maxEvents?: number
}

export interface RunResult {
  events: number
  time: number
  /** Nothing is left to happen. */
  quiescent: boolean
}

/**
 * The nodes `launch` started, a `request` that type-checks against their protocol, and their
 * emitted events typed by the protocol's event type `Ev`.
 */
export interface LaunchedGroup<Req, Ev = unknown> {
  /** Ids of the group, ascending. */
  readonly members: readonly NodeId[]
  /** `SimNetwork.request` for a member of the group. */
  request(id: NodeId, req: Req, at?: number): void
  /**
   * Listens to the events the group's protocol emits from now on (restarts included). For the
   * events emitted while the nodes start, pass `onEmit` to `launch`.
   */
  onEmit(listener: EmitListener<Ev>): Unsubscribe
}

export interface LaunchOptions<Ev = unknown> {
  /** Listens to the group's events from the start: what the nodes emit while `launch` starts them too. */
  onEmit?: EmitListener<Ev>
}

export interface RestartOptions {
  /** The node comes back with empty storage, as after losing its disk. Default false. */
  wipeStorage?: boolean
}

/** Hears an emitted event: which node, what (`Ev`, the protocol's event type), at what virtual time. */
export type EmitListener<Ev = unknown> = (node: NodeId, event: Ev, time: number) => void
