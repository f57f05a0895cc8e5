/**
 * Property runs of the centralized lock with shared entries, permits, `ifAvailable` and `steal`:
 * random workloads under random faults (crash and restart, pause, partition, clock step, on links
 * that lose, duplicate and reorder), judged across all nodes by `checkMutualExclusion` and for
 * liveness (every acquire of a node that never crashed is answered).
 */
import {
  createRandom,
  faultsOf,
  type NodeId,
  type ProtocolFactory,
  type Random,
  type SimNetwork,
} from '@sd/transport'
import { runInSim } from '@sd/transport/testing'
import type {
  CentralizedEvent,
  CentralizedMessage,
  CentralizedRequest,
} from '../../src/centralized/index.js'
import { checkMutualExclusion, type TimedEvent } from '../../src/check.js'
import type { MutexRequest } from '../../src/contract.js'

export type AcquireRequest = Extract<MutexRequest, { type: 'acquire' }>

export interface ModeAsk {
  node: NodeId
  at: number
  hold: number
  acquire: AcquireRequest
}

export type Workload = 'readers-writers' | 'permits'

/** Random asks: readers and writers, or permits of one limit; some `ifAvailable`, some `steal`. */
export function modeAsks(
  rnd: Random,
  ids: readonly NodeId[],
  workload: Workload,
  options: { count: number; spanMs: number; maxHold: number; steal: boolean },
): ModeAsk[] {
  const of = 3
  return Array.from({ length: options.count }, () => {
    const resource = rnd.next() < 0.7 ? 'a' : 'b'
    const acquire: AcquireRequest = { type: 'acquire', resource }
    if (workload === 'readers-writers') {
      if (rnd.next() < 0.6) acquire.mode = 'shared'
    } else acquire.permits = { take: rnd.int(1, of), of }
    const flag = rnd.next()
    if (flag < 0.15) acquire.ifAvailable = true
    else if (options.steal && flag < 0.22) acquire.steal = true
    return {
      node: ids[rnd.int(0, ids.length - 1)]!,
      at: rnd.int(0, options.spanMs),
      hold: rnd.int(1, options.maxHold),
      acquire,
    }
  })
}

/**
 * Faults, one after the other, ending by `endMs` (every node is back, healed and resumed after):
 * crash and restart, pause, partition, clock step, and moves of the coordinator to a newer term.
 */
export function randomFaults(rnd: Random, ids: readonly NodeId[], endMs: number) {
  const plan: Array<(net: SimNetwork) => void> = []
  let term = 0
  let t = rnd.int(10, 80)
  while (t < endMs) {
    const at = t
    const back = at + rnd.int(5, 120)
    const node = ids[rnd.int(0, ids.length - 1)]!
    const kind = rnd.int(0, 4)
    if (kind === 4) {
      // The coordinator moves to `node` in a newer term (as an election would tell every node).
      const newTerm = ++term
      plan.push((net) =>
        net.at(at, () => {
          for (const id of ids) {
            if (!net.isCrashed(id))
              net.request(id, { type: 'coordinator', id: node, term: newTerm })
          }
        }),
      )
    } else if (kind === 0) {
      plan.push((net) => {
        net.at(at, () => net.crash(node))
        net.at(back, () => net.restart(node))
      })
    } else if (kind === 1) {
      plan.push((net) => {
        net.at(at, () => net.pause(node))
        net.at(back, () => net.resume(node))
      })
    } else if (kind === 2) {
      const others = ids.filter((i) => i !== node)
      plan.push((net) => {
        net.at(at, () => net.partition([node], others))
        net.at(back, () => net.heal())
      })
    } else {
      const step = rnd.int(-500, 500)
      plan.push((net) => net.at(at, () => net.stepClock(node, step)))
    }
    t = back + rnd.int(1, 60)
  }
  return (net: SimNetwork) => {
    for (const p of plan) p(net)
  }
}

export type Factory = ProtocolFactory<CentralizedMessage, CentralizedRequest, CentralizedEvent>

export interface ModeRun {
  events: TimedEvent<CentralizedEvent>[]
  violations: string[]
  /** Acquires of nodes that never crashed, and how many of them were answered. */
  asked: number
  answered: number
  entries: number
  net: SimNetwork
}

/** Runs `asks` under `faults`, releasing each entry `hold` ms after it, and judges the run. */
export function runModes(
  ids: readonly NodeId[],
  factory: Factory,
  asks: readonly ModeAsk[],
  options: {
    seed: number
    faults?: (net: SimNetwork) => void
    until: number
    loss?: number
    duplicate?: number
  },
): ModeRun {
  const holds = new Map<string, number[]>()
  const key = (node: NodeId, resource: string) => JSON.stringify([node, resource])
  let sim: SimNetwork | undefined // set by the plan, before the first acquire
  const { net, events } = runInSim(ids, factory, {
    seed: options.seed,
    net: {
      fifo: false,
      latency: { kind: 'uniform', min: 1, max: 10 },
      loss: options.loss ?? 0,
      duplicate: options.duplicate ?? 0,
    },
    until: options.until,
    onEmit: (node, event, t) => {
      if (
        event.type !== 'acquired' &&
        event.type !== 'unavailable' &&
        event.type !== 'limit-mismatch'
      )
        return
      const hold = holds.get(key(node, event.resource))?.shift()
      if (event.type === 'acquired' && hold !== undefined) {
        const s = sim!
        s.at(t + hold, () => {
          if (!s.isCrashed(node)) s.request(node, { type: 'release', resource: event.resource })
        })
      }
    },
    plan: (planned) => {
      sim = planned
      for (const ask of asks) {
        planned.at(ask.at, () => {
          if (planned.isCrashed(ask.node)) return
          const k = key(ask.node, ask.acquire.resource!)
          holds.set(k, [...(holds.get(k) ?? []), ask.hold])
          planned.request(ask.node, ask.acquire)
        })
      }
      options.faults?.(planned)
    },
  })
  const crashed = new Set(net.trace.flatMap((e) => (e.type === 'crash' ? [e.node] : [])))
  const verdict = checkMutualExclusion(events, faultsOf(net.trace))
  const answers = events.filter(
    (e) =>
      !crashed.has(e.node) &&
      (e.event.type === 'acquired' ||
        e.event.type === 'unavailable' ||
        e.event.type === 'limit-mismatch'),
  )
  return {
    events,
    violations: verdict.violations,
    asked: asks.filter((a) => !crashed.has(a.node) && a.at < options.until).length,
    answered: answers.length,
    entries: verdict.entries,
    net,
  }
}

export { createRandom }
