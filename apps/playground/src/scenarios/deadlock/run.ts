/**
 * Shared by the @sd/deadlock scenarios: the resource manager on sites 1..n in the simulator, and
 * a ring workload whose waits cross every site. `judge.ts` judges a run from its events,
 * `describe.ts` words the diagram.
 */
import {
  type ProcessId,
  type ProcessSpec,
  type ResourceManagerOptions,
  resourceManager,
  type TimedDeadlockEvent,
} from '@sd/deadlock'
import { type NodeId, SimNetwork, sortNodeIds } from '@sd/transport'
import { type PlannedFault, planFaults } from '../../fault-plan.js'
import type { FaultSupport, Scenario } from '../../scenario.js'
import { appendOnly, keepSideState } from '../../side-state.js'

/** Every message takes MIN..MAX ms (uniform), and links may reorder. */
export const MIN_LATENCY_MS = 1
export const MAX_LATENCY_MS = 3

export const LINKS = `Every message takes ${MIN_LATENCY_MS} to ${MAX_LATENCY_MS} ms (uniform, from the seed), links not FIFO.`

export const NO_CRASH =
  'The resource manager assumes sites that do not fail (a crashed site would hold its locks forever): --crash is not accepted.'

/** --pause in the deadlock scenarios: a slow site, not a failed one. */
export const PAUSE: FaultSupport = {
  accepts:
    'a paused site handles nothing until its resume (its lock tables answer late, its probes or reports wait), so waits last longer; every check still applies, and the run must still resolve every deadlock',
}

/** The liveness every deadlock scenario checks. */
export const RESOLVES =
  'every deadlock is resolved: no cycle of waits is left, and every process finishes or is aborted'

/** In the ring, each process works this long on its own resource, then as long holding both. */
export const WORK_MS = 10

/**
 * A deadlock scenario from what is its own: the rest is shared (`--pause` as a slow site, n = 4 by
 * default, and the description's end: the links, what the trace is checked for, no `--crash`).
 */
export function deadlockScenario(
  scenario: Omit<Scenario, 'pause' | 'defaultN'> & { checks: string },
): Scenario {
  const { checks, ...own } = scenario
  return {
    ...own,
    description: `${own.description} ${LINKS} Checks from the trace: ${checks} ${NO_CRASH}`,
    pause: PAUSE,
    defaultN: 4,
  }
}

/** A network for the manager, with `--pause` planned on it. */
export function newNetwork(seed: number, faults: readonly PlannedFault[] = []): SimNetwork {
  const net = new SimNetwork({
    seed,
    latency: { kind: 'uniform', min: MIN_LATENCY_MS, max: MAX_LATENCY_MS },
    fifo: false,
  })
  planFaults(net, faults)
  return net
}

export interface Workload {
  sites: NodeId[]
  resources: Record<string, NodeId>
  processes: ProcessSpec[]
}

/**
 * Sites 1..n, resource r<i> at site i. Process i runs at site `home(i)` (default i) from
 * `startAt(i)`: it takes r<i>, works WORK_MS, asks for r<i+1> (the last one for r1), then holds
 * both for WORK_MS and finishes. Once every process holds its first resource, the waits go round
 * every site: a cycle.
 */
export function ringWorkload(
  n: number,
  options: { startAt: (i: number) => number; home?: (i: number) => number },
): Workload {
  const sites = Array.from({ length: n }, (_, i) => i + 1)
  const resources: Record<string, NodeId> = {}
  for (const site of sites) resources[`r${site}`] = site
  const processes: ProcessSpec[] = sites.map((i) => ({
    id: i,
    home: options.home?.(i) ?? i,
    startAt: options.startAt(i),
    steps: [
      { acquire: `r${i}` },
      { work: WORK_MS },
      { acquire: `r${i === n ? 1 : i + 1}` },
      { work: WORK_MS },
    ],
  }))
  return { sites, resources, processes }
}

/** A network with `--pause` planned, the manager launched on the workload's sites, its events. */
export function launchManager(
  { seed, faults }: { seed: number; faults?: readonly PlannedFault[] },
  workload: Workload,
  strategy: ResourceManagerOptions['strategy'],
): { net: SimNetwork; events: TimedDeadlockEvent[] } {
  const net = newNetwork(seed, faults)
  const events: TimedDeadlockEvent[] = []
  net.launch(
    workload.sites,
    resourceManager({ resources: workload.resources, processes: workload.processes, strategy }),
    { onEmit: (node, event, t) => events.push({ node, t, event }) },
  )
  // The events only grow (a scenario that plans from them keeps its own side state instead).
  keepSideState(net, appendOnly([events]))
  return { net, events }
}

export function distinct<T>(values: Iterable<T>): T[] {
  return [...new Set(values)]
}

/** Numbers ascending, then strings (the project-wide order of ids). */
export function sortIds(ids: Iterable<ProcessId>): ProcessId[] {
  return sortNodeIds(ids)
}

/** `1 → 2 → 3 → 1`: a cycle, closed. */
export function arrow(cycle: readonly ProcessId[]): string {
  return [...cycle, cycle[0]!].map(String).join(' → ')
}

/** Milliseconds to the microsecond, for the JSON result. */
export function ms(x: number): number {
  return Math.round(x * 1000) / 1000
}
