import type { NodeId, SimNetwork, TraceEvent } from '@sd/transport'

/** What `sd run <scenario>` was asked for. */
export interface ScenarioOptions {
  n: number
  seed: number
  /** Nodes to crash (each scenario says when). */
  crash: NodeId[]
}

/** A finished run: the CLI prints its diagram, counts and result, or the JSON summary. */
export interface ScenarioRun {
  /** The network after the run: its trace, stats and virtual time are reported. */
  net: SimNetwork
  /** Scenario-specific findings, printed under `result` in --json. */
  result: Record<string, unknown>
  /** Broken invariants, as sentences. Empty when all is well. */
  violations: string[]
  /** Extra text for a trace event on the diagram (e.g. the clock value after it). */
  annotate?: (event: TraceEvent) => string | undefined
  /** Lines printed after the diagram (a summary for humans). */
  summary?: string[]
}

export interface Scenario {
  name: string
  /** One line for `sd list`. */
  title: string
  /** A few sentences for `sd run <name> --help`: what the run shows and what it checks. */
  description: string
  /** When `--crash` takes effect, for `--help`. Without it the scenario refuses `--crash`. */
  crashes?: string
  /** The lowest node id; the nodes are firstId..firstId+n-1 (default 1; the texts' election examples start at 0). */
  firstId?: number
  defaultN: number
  minN: number
  maxN: number
  run(options: ScenarioOptions): ScenarioRun
}
