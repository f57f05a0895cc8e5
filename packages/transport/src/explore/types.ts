import type { NodeId } from '../ids.js'
import type { KeyAbstraction } from '../sim/key-abstraction.js'
import type { SimNetwork } from '../sim/network.js'
import type { TimedEvent } from '../sim/trace.js'
import type { SymmetryInfo } from './symmetry.js'

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
  /**
   * What the invariant remembers of the events so far, as plain data: stateful exploration
   * merges two paths only when their network states and histories are equal. Default: each
   * node's emitted events in order (sound for an invariant that judges each node's own events
   * or causality, as the reduction already asks). An invariant that only looks at `net` can
   * return null here and merge more; one that counts entries can return the counts.
   */
  history?(events: ReadonlyArray<TimedEvent<Ev>>): unknown
  /**
   * Goals every fair run must reach (◇goal), checked on the stateful search's state graph: see
   * the README, "Liveness". `holds` reads the state like the invariant does; `history` must keep
   * what it reads of the events.
   */
  liveness?: LivenessGoal<Ev> | ReadonlyArray<LivenessGoal<Ev>>
  /**
   * Nodes that are interchangeable: `true` for all, or groups (`[['b', 'c', 'd']]`). The stateful
   * search then expands one state per orbit: a state and its image under any permutation of ids
   * within the groups count as one (each state is relabelled n! ways per group of n: fine for
   * n ≤ 5, refused above 6). Sound only when nothing depends on which id of a group a node has:
   * the protocol (no tie-break by id, as Ricart-Agrawala's; no `ctx.random`, seeded per node),
   * the setup (the same requests on each, no planned action naming one), the invariant and the
   * options (`crashable` and the like take a group whole). Declaring an asymmetric protocol
   * symmetric is a user error the explorer cannot see: it merges states that differ and may miss
   * violations. Ignored by the stateless search. See the README, "Symmetry".
   */
  symmetric?: boolean | ReadonlyArray<ReadonlyArray<NodeId>>
  /**
   * Renames the node ids in the protocol's own data, for `symmetric`: called on each node's
   * snapshot and storage, each message in flight, each emitted event, timer keys and the value of
   * `history`; returns the data with every id in it passed through `rename` (as values, object
   * keys, inside text) and everything else as is. Without it, strings equal to a string id are
   * renamed (values and object keys), numbers never: a group with a number id needs this hook.
   */
  relabel?(data: unknown, rename: (id: NodeId) => NodeId): unknown
  /**
   * What `invariant` reads, for `reduction: 'ample'`: the invariant's verdict must depend on
   * nothing but the events `events` accepts (each node's, in their order) and the state of the
   * nodes in `nodes` (snapshot, crashed or not). `{}`: it reads nothing. A choice that emits such
   * an event, or runs on such a node, is visible: never left out. Undeclared: no ample sets.
   * Declaring less than the invariant reads is a user error the explorer cannot see.
   */
  reads?: Reads<Ev>
  /**
   * Who may send to whom, for `reduction: 'ample'`: without it every node may send to every
   * other, and the ample sets are every choice. Checked on every step the search takes.
   */
  communication?: Communication
  /**
   * State the scenario keeps beside the network (what its callbacks or planned actions collect,
   * e.g. the faults that happened, for the invariant), as plain data. The stateful search saves it
   * with each checkpoint and puts it back when it returns to a state, and counts it in the state
   * key, so two paths merge only when it is equal too. Without it, such state would carry over
   * from one branch to another. `restore` gets what `save` gave on the same network.
   */
  sideState?: SideState
  /**
   * A state abstraction for the stateful search's key: in the states where `applies` holds, each
   * running node counts as what `node` keeps of its snapshot and disk, and each message in flight
   * as what `message` keeps of it, so states that differ only in what it leaves out are expanded
   * once. Sound only when what it leaves out is dead in those states: nothing the search looks at
   * from there on (what any node does next, the invariant, `history`) can depend
   * on it, on any path; e.g. Lamport clocks once no request will ever be stamped again. The
   * explorer cannot check that: leaving out a live value merges states that differ and may miss
   * violations. Refused with `symmetric` and with `liveness`. See the README, "Abstraction: dead
   * values".
   */
  abstraction?: KeyAbstraction
}

/** See `ExploreScenario.sideState`. */
export interface SideState {
  save(net: SimNetwork): unknown
  restore(net: SimNetwork, saved: unknown): void
}

/** See `ExploreScenario.reads`. */
export interface Reads<Ev = unknown> {
  events?(event: Ev, node: NodeId): boolean
  nodes?: readonly NodeId[]
}

/** See `ExploreScenario.communication`. */
export interface Communication {
  /**
   * The nodes `from`'s handlers may send to after setup (messages sent in `start` are in the
   * first state already). A node left out of every list is one nothing reaches.
   */
  sendsTo(from: NodeId): readonly NodeId[]
  /**
   * Nodes whose handlers may set a timer, or whose events make the setup plan a request or an
   * action (a time-moving event, dependent with everything). Default none.
   */
  timed?: readonly NodeId[]
}

/** A goal such as "every request of a live node has been served". */
export interface LivenessGoal<Ev = unknown> {
  name: string
  holds(state: ExploreState<Ev>): boolean
}

/**
 * A run that never reaches the goal: `prefix`, then `loop` forever (every state of both fails the
 * goal). An empty loop is a terminal state: nothing left to happen at all.
 */
export interface Lasso {
  message: string
  kind: 'deadlock' | 'cycle'
  /** Schedules as `replay` takes them (`replay(s, lasso.schedule, { maxSteps: 0 })`). */
  prefix: string
  /** The loop's first turn, from where the prefix ends back to that state. */
  loop: string
  /** The prefix, then the loop twice (the second turn's event names differ from the first's). */
  schedule: string
}

/**
 * `lasso`: a fair run that never reaches the goal. `not reached within the bound`: no lasso, but
 * some run stopped at `until`, `depth` or `maxStates` with the goal not reached. `search
 * incomplete`: neither, and the search stopped early (`maxSchedules`, a broken invariant).
 * `holds`: every fair run within the bounds reaches the goal.
 */
export type LivenessVerdict =
  | 'holds'
  | 'lasso'
  | 'not reached within the bound'
  | 'search incomplete'

export interface LivenessResult {
  name: string
  verdict: LivenessVerdict
  lasso?: Lasso
  /** States where a run stopped at a bound with the goal not reached. */
  unreached: number
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
  /**
   * Partial-order reduction: orderings that differ only by swapping independent choices
   * (deliveries to different nodes) are explored once.
   * `'dpor'`: source-set DPOR with sleep sets (stateless search only; the stateful search then
   * uses sleep sets); `'sleep'`: sleep sets alone; `'ample'`: ample sets with sleep sets (stateful
   * search only, and only for a scenario that declares `reads` and `communication`; else sleep
   * sets; see the README, "Ample sets"); `true` (the default): `'dpor'` when stateless, `'sleep'`
   * when stateful; `false`: every ordering. `result.reduction` says which ran.
   */
  reduction?: boolean | 'dpor' | 'sleep' | 'ample'
  /** Stop after this many schedules (then `exhausted` is false). Default 100,000. */
  maxSchedules?: number
  /** Stateful: stop after expanding this many states (then `exhausted` is false). Default 1,000,000. */
  maxStates?: number
  /**
   * Stateful exploration (default true): when every node's protocol has `snapshot()`, states
   * already expanded are not expanded again. False forces the stateless search.
   */
  stateful?: boolean
  /**
   * Stateful: called with the counts so far each time another `progressEvery` states have been
   * expanded (a search of hundreds of millions of states runs for hours; TLC prints the same).
   * The result it is given is the live one: read it, do not keep or change it.
   */
  onProgress?: (result: Readonly<ExploreResult>) => void
  /** States between two `onProgress` calls. Default 1,000,000. */
  progressEvery?: number
}

export interface Counterexample {
  message: string
  /** The schedule that broke it, as `replay` takes it. */
  schedule: string
  /** A shorter schedule that breaks it too (the rest of the run in virtual-time order). */
  shrunk: string
}

export interface ExploreResult {
  /**
   * Which search ran: `stateful` when every node had `snapshot()` (and `stateful` was not
   * turned off), `stateless` otherwise.
   */
  mode: 'stateful' | 'stateless'
  /** The partial-order reduction that ran (see `ExploreOptions.reduction`). */
  reduction: 'dpor' | 'sleep' | 'ample' | 'none'
  /** With `reduction: 'ample'`: how much the ample sets left out (see `AmpleInfo`). */
  ample?: AmpleInfo
  /**
   * Schedules explored to their end (no event left, or the depth bound), each a distinct ordering
   * up to the reduction. Stateful, a path that reaches a state already expanded stops there and
   * is not counted.
   */
  schedules: number
  /**
   * Runs of the scenario from its start: the first, and one replay per backtrack that could not
   * restore a saved state instead (see `restores`).
   */
  executions: number
  /**
   * Stateful: backtracks that restored a saved state of the simulator (every running protocol
   * has `restore()`) instead of replaying the prefix. Replays are `executions` - 1.
   */
  restores?: number
  /**
   * Nothing within the bounds was left for lack of `maxSchedules`. Stateless: every schedule was
   * run. Stateful: every reachable state (network fingerprint, fault budget used, history) was
   * expanded with every choice the reduction keeps; schedules through states met before were
   * not run again, and their futures are the ones already explored (up to a hash collision, about
   * n² / 2^65 for n states).
   */
  exhausted: boolean
  /** States expanded: distinct ones when stateful; stateless, every visit counts. */
  states: number
  /** Choices taken out of expanded states (edges of the search; replays not counted). */
  transitions: number
  /** Schedules stopped by the depth bound with events still pending. */
  cutByDepth: number
  /**
   * Distinct terminal states, told apart by each node's emitted events and who crashed. Stateful
   * with a `history` that forgets events, terminal states that differ only in events merge.
   */
  terminalStates: number
  /** Steps executed in all, re-executions included. */
  steps: number
  counterexample?: Counterexample
  /**
   * The symmetry reduction, when the scenario declared `symmetric` and the search was stateful:
   * its groups, the relabellings tried per state, and how many concrete states merged into
   * another's orbit.
   */
  symmetry?: SymmetryInfo
  /** One per liveness goal of the scenario, in its order (stateful only). */
  liveness?: LivenessResult[]
}

/** What the ample sets did in a stateful search. */
export interface AmpleInfo {
  /** States expanded with fewer choices than enabled. */
  reduced: number
  /** Choices those states left out. */
  leftOut: number
  /** States whose candidate was refused: visible (C2) or back onto the stack (C3). */
  refused: number
}
