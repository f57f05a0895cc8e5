/**
 * Random lock workloads for the resource manager: sites owning resources, processes at random
 * homes acquiring a few random resources in random order, run in the simulator with random
 * delays; the events are judged by `checkDeadlocks`.
 */
import { createRandom, type NodeId, type SimNetwork } from '@sd/transport'
import { runInSim } from '@sd/transport/testing'
import { checkDeadlocks, type DeadlockVerdict, type TimedDeadlockEvent } from '../../src/check.js'
import type { ProcessSpec } from '../../src/contract.js'
import { type ResourceManagerOptions, resourceManager } from '../../src/manager/index.js'

export interface Workload {
  sites: NodeId[]
  resources: Record<string, NodeId>
  processes: ProcessSpec[]
}

export function randomWorkload(
  seed: number,
  size: { sites?: number; resources?: number; processes?: number } = {},
): Workload {
  const random = createRandom(`workload/${seed}`).next
  const pick = (n: number) => Math.floor(random() * n)
  const sites = Array.from({ length: size.sites ?? 2 + pick(3) }, (_, i) => i + 1)
  const resources: Record<string, NodeId> = {}
  const names = Array.from({ length: size.resources ?? 3 + pick(6) }, (_, i) => `r${i + 1}`)
  for (const name of names) resources[name] = sites[pick(sites.length)]!
  const processes: ProcessSpec[] = []
  for (let i = 1; i <= (size.processes ?? 3 + pick(8)); i++) {
    const wanted = [...names].sort(() => random() - 0.5).slice(0, 2 + pick(2))
    processes.push({
      id: `p${i}`,
      home: sites[pick(sites.length)]!,
      resources: wanted,
      workMs: 1 + pick(20),
      startAt: pick(30),
    })
  }
  return { sites, resources, processes }
}

export interface WorkloadRun extends DeadlockVerdict {
  net: SimNetwork
  events: TimedDeadlockEvent[]
}

export function runWorkload(
  seed: number,
  workload: Workload,
  strategy: ResourceManagerOptions['strategy'],
  until?: number,
  plan?: (net: SimNetwork) => void,
): WorkloadRun {
  const { net, events } = runInSim(
    workload.sites,
    resourceManager({ resources: workload.resources, processes: workload.processes, strategy }),
    { seed, net: { latency: { kind: 'uniform', min: 1, max: 6 }, fifo: false }, plan, until },
  )
  return { ...checkDeadlocks(events), net, events }
}
