import type { NodeId } from '../ids.js'
import type { SimNetwork } from '../sim/network.js'
import type { TimedEvent } from '../sim/trace.js'

/** What an invariant sees: the network after a step, and every event emitted so far. */
export interface ExploreState<Ev = unknown> {
  net: SimNetwork
  /**
   * Everything emitted so far, typed by `Ev`: the event type of the protocols `setup` launches,
   * as `launch`'s `onEmit` types them (the explorer takes the scenario's word for it).
   */
  events: ReadonlyArray<TimedEvent<Ev>>
}

/** A scenario to explore: the same setup and invariant replay any schedule. */
export interface ExploreScenario<Ev = unknown> {
  /** Builds the network: launches the nodes, plans requests and faults. Runs once per schedule. */
  setup(net: SimNetwork): void
  /**
   * A broken invariant as a sentence, or undefined. Checked after every step. With the reduction
   * on, independent events (at different nodes) are explored in one order only, so the invariant
   * must not depend on the order of independent events: judge each node's own events, causality
   * (`withVectorClocks`), or the state at the end; otherwise explore with `reduction: false`.
   */
  invariant(state: ExploreState<Ev>): string | undefined
  /** The simulator's seed (it seeds each node's `ctx.random`). Default 1. */
  seed?: number | string
  /**
   * The simulator's link settings: with `fifo: true` (the default, as in the simulator) messages
   * of one link arrive in the order sent, with `fifo: false` in any order. Latency and loss
   * settings are ignored: the explorer decides orderings and injects faults itself.
   */
  fifo?: boolean
}

/** Bounds and modes of an exploration. */
export interface ExploreOptions {
  /** Choices per schedule at most; a schedule cut there counts in `cutByDepth`. Default 100. */
  depth?: number
  /**
   * Faults the explorer itself may inject per schedule, by kind, and `total` across kinds.
   * Default none.
   */
  faults?: {
    loss?: number
    duplicate?: number
    crash?: number
    /** Pauses: the node stops for `pauseMs` of virtual time, then handles its backlog. */
    pause?: number
    /** Steps of a node's wall clock by `clockStepMs` (its monotonic clock and timers go on). */
    clockStep?: number
    total?: number
  }
  /** Nodes the explorer may crash (default: every node). */
  crashable?: readonly NodeId[]
  /** Nodes the explorer may pause (default: every node). */
  pausable?: readonly NodeId[]
  /** How long an injected pause lasts, ms of virtual time. Default 1000. */
  pauseMs?: number
  /** Nodes whose wall clock the explorer may step (default: every node). */
  steppable?: readonly NodeId[]
  /** How far an injected clock step moves the wall clock, ms (negative: back). Default -1000. */
  clockStepMs?: number
  /** Only events due at or before this virtual time are offered. Default: no bound. */
  until?: number
  /** See `SimNetwork.choices`. Default 'in-order'. */
  timers?: 'in-order' | 'any-order'
  /** Sleep-set partial-order reduction (default true). */
  reduction?: boolean
  /** Stop after this many schedules (then `exhausted` is false). Default 100,000. */
  maxSchedules?: number
}

export interface Counterexample {
  message: string
  /** The schedule that broke it, as `replay` takes it. */
  schedule: string
  /** A shorter schedule that breaks it too (the rest of the run in virtual-time order). */
  shrunk: string
}

export interface ExploreResult {
  /** Complete schedules explored (each a distinct ordering up to the reduction). */
  schedules: number
  /** Every schedule within the bounds was explored (none left for lack of `maxSchedules`). */
  exhausted: boolean
  /** Schedules stopped by the depth bound with events still pending. */
  cutByDepth: number
  /** Distinct terminal states, told apart by each node's emitted events and who crashed. */
  terminalStates: number
  /** Steps executed in all, re-executions included. */
  steps: number
  counterexample?: Counterexample
}
