import type { NodeId, SimNetwork, TraceEvent } from '@sd/transport'
import type { PlannedFault } from './fault-plan.js'

/** What `sd run <scenario>` was asked for. */
export interface ScenarioOptions {
  n: number
  seed: number
  /** Nodes to crash (each scenario says when). */
  crash: NodeId[]
  /** `--pause` and `--clock-step`, checked (default none); a scenario plans them with `planFaults`. */
  faults?: PlannedFault[]
}

/** Something a scenario promised would happen that had not happened when the run ended. */
export interface Unfinished {
  /** The node it concerns, if one. */
  node?: NodeId
  /** What was left undone: `request of 3 at t=12 ms`. */
  what: string
  /** Why, as far as the run can tell. */
  why: string
  /**
   * True when the scenario's own description says the algorithm blocks here (a crashed member
   * of Ricart-Agrawala, Lamport or Maekawa): said plainly, not counted as a failure.
   */
  expected: boolean
}

/** The liveness half of a run's verdict: what should have happened, and what did not. */
export interface Liveness {
  /** The promise checked, in one sentence (`every request of a node that stays up is served`). */
  property: string
  /** Empty when the promise was kept in full. */
  unfinished: Unfinished[]
}

/** A finished run: the CLI prints its diagram, counts and result, or the JSON summary. */
export interface ScenarioRun {
  /** The network after the run: its trace, stats and virtual time are reported. */
  net: SimNetwork
  /** Scenario-specific findings, printed under `result` in --json. */
  result: Record<string, unknown>
  /** Broken invariants, as sentences. Empty when all is well. */
  violations: string[]
  /**
   * Broken invariants that the scenario is built to show (mutex-quorum's restart in the
   * intersection): printed as its finding, not failing the run. Such a scenario reports a
   * violation when the intended one does NOT happen.
   */
  expectedViolations?: string[]
  /**
   * What the run promised to finish (requests served, an agreed leader, clocks converged) and
   * what it left undone. An unfinished item that is not `expected` fails the run (exit 1).
   */
  liveness?: Liveness
  /** Extra text for a trace event on the diagram (e.g. the clock value after it). */
  annotate?: (event: TraceEvent) => string | undefined
  /**
   * Message rows the story needs that the diagram could not tell apart from traffic (CMH's
   * probe arriving back at its initiator): never folded when the diagram condenses.
   */
  story?: (event: TraceEvent) => boolean
  /** Lines printed after the diagram (a summary for humans). */
  summary?: string[]
}

/** How a scenario takes a timed fault: what it does there (for --help), or why it refuses it. */
export type FaultSupport = { accepts: string } | { refuses: string }

export interface Scenario {
  name: string
  /** One line for `sd list`. */
  title: string
  /** A few sentences for `sd run <name> --help`: what the run shows and what it checks. */
  description: string
  /**
   * Why the seed changes nothing (fixed latencies, a fixed plan): said under the run's title and
   * in `--help`, so that `--seed` is not thought to vary it. Absent: the seed drives the run.
   */
  deterministic?: string
  /** When `--crash` takes effect, for `--help`. Without it the scenario refuses `--crash`. */
  crashes?: string
  /**
   * Nodes crashed when `--crash` is not given, because the story needs it (the failover of
   * mutex-centralized); `--crash none` runs without.
   */
  defaultCrash?: NodeId[]
  /** `--pause`: without it the scenario refuses the flag (`sd run <name> --help` says why). */
  pause?: FaultSupport
  /** `--clock-step`: without it the scenario refuses the flag, as no protocol reads the wall clock. */
  clockStep?: FaultSupport
  /** The lowest node id; the nodes are firstId..firstId+n-1 (default 1; the texts' election examples start at 0). */
  firstId?: number
  /**
   * The node ids are drawn from the seed (shown in the output), not firstId..: the ids of
   * `--pause` and `--clock-step` are checked against them when the run starts.
   */
  randomIds?: true
  defaultN: number
  minN: number
  maxN: number
  run(options: ScenarioOptions): ScenarioRun
}
