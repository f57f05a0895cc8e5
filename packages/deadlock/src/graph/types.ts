/** A process (or transaction) in a wait-for graph: any string or finite number; `1` and `'1'` are different processes. */
export type ProcessId = string | number

/** One wait, `[from, to]`: `from` waits for `to` (for a resource `to` holds). */
export type Wait<Id extends ProcessId = ProcessId> = readonly [from: Id, to: Id]

/** The processes and waits of a graph. */
export interface GraphSize {
  readonly processes: number
  readonly waits: number
}

export interface ComponentOptions {
  /** Only the components that contain a cycle (two processes or more: self-waits are not allowed). */
  cyclicOnly?: boolean
}

export interface ElementaryCyclesOptions {
  /**
   * How many cycles to return at most: a graph can have exponentially many elementary cycles (a
   * complete graph on n processes has more than (n - 1)! of them), so the caller chooses. A positive
   * integer, or `Infinity` for all of them.
   */
  limit: number
}
