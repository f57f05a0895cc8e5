import type { ComponentOptions, ElementaryCyclesOptions, ProcessId, Wait } from './types.js'
import { WaitForGraph } from './wait-for-graph.js'

// One-call forms over an edge list, for a graph that is only analysed once. Duplicate waits count
// once; a self-wait throws InvalidArgumentError, as in WaitForGraph.

/** The strongly connected components of the graph of `waits` (see `WaitForGraph.stronglyConnectedComponents`). */
export function sccOf<Id extends ProcessId>(
  waits: Iterable<Wait<Id>>,
  options?: ComponentOptions,
): Id[][] {
  return new WaitForGraph<Id>(waits).stronglyConnectedComponents(options)
}

/** One cycle of the graph of `waits`, or undefined when it has none (see `WaitForGraph.findCycle`). */
export function findCycleOf<Id extends ProcessId>(waits: Iterable<Wait<Id>>): Id[] | undefined {
  return new WaitForGraph<Id>(waits).findCycle()
}

/** The deadlocked processes of the graph of `waits`, AND model (see `WaitForGraph.deadlockedProcesses`). */
export function deadlockedOf<Id extends ProcessId>(waits: Iterable<Wait<Id>>): Id[] {
  return new WaitForGraph<Id>(waits).deadlockedProcesses()
}

/** Up to `limit` elementary cycles of the graph of `waits` (see `WaitForGraph.elementaryCycles`). */
export function elementaryCyclesOf<Id extends ProcessId>(
  waits: Iterable<Wait<Id>>,
  options: ElementaryCyclesOptions,
): Id[][] {
  return new WaitForGraph<Id>(waits).elementaryCycles(options)
}
