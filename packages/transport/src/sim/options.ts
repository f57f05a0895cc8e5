import type { NodeId } from '../ids.js'
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

/** The nodes `launch` started, and a `request` that type-checks against their protocol. */
export interface LaunchedGroup<Req> {
  /** Ids of the group, ascending. */
  readonly members: readonly NodeId[]
  /** `SimNetwork.request` for a member of the group. */
  request(id: NodeId, req: Req, at?: number): void
}

export interface RestartOptions {
  /** The node comes back with empty storage, as after losing its disk. Default false. */
  wipeStorage?: boolean
}

export type EmitListener = (node: NodeId, event: unknown, time: number) => void
