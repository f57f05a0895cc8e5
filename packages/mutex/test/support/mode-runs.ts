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

/**
 * Random asks: readers and writers, or permits of one limit; some `ifAvailable`, some `steal`.
 * `loops`: each ask is made 1 to `loops` times at once by its node (a client that loops: its next
 * acquire waits locally and is made as the one before is released).
 */
export function modeAsks(
  rnd: Random,
  ids: readonly NodeId[],
  workload: Workload,
  options: { count: number; spanMs: number; maxHold: number; steal: boolean; loops?: number },
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
    const ask = {
      node: ids[rnd.int(0, ids.length - 1)]!,
      at: rnd.int(0, options.spanMs),
      hold: rnd.int(1, options.maxHold),
      acquire,
    }
    // Drawn only with `loops`, so the asks of runs without it are what they were.
    const times = options.loops === undefined ? 1 : rnd.int(1, options.loops)
    return Array.from({ length: times }, () => ({ ...ask, acquire: { ...acquire } }))
  }).flat()
}

/**
 * Entries of one node on one resource whose token is not above its entry before (a node's
 * entries, on a kept grant or not, come in token order), as violations in words.
 */
export function tokensBackwards(events: readonly TimedEvent<CentralizedEvent>[]): string[] {
  const last = new Map<string, number>()
  const out: string[] = []
  for (const { node, t, event } of events) {
    if (event.type !== 'acquired') continue
    const key = JSON.stringify([node, event.resource])
    const before = last.get(key) ?? -Infinity
    if (!(event.token > before)) {
      out.push(
        `t=${t}: ${String(node)} entered ${event.resource} with token ${event.token}, not above its ${before}`,
      )
    }
    last.set(key, event.token)
  }
  return out
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

/** One seeded run: 3 to 5 nodes, asks over 600 ms (`loops`: see modeAsks), faults until 900 ms, judged at 8 s. */
export function seededModeRun(
  seed: number,
  workload: Workload,
  protocol: Factory,
  options: { steal?: boolean; loops?: number | undefined } = {},
): ModeRun {
  const rnd = createRandom(`modes-${workload}-${seed}`)
  const ids = Array.from({ length: rnd.int(3, 5) }, (_, i) => i + 1)
  const asks = modeAsks(rnd, ids, workload, {
    count: rnd.int(5, 30),
    spanMs: 600,
    maxHold: 40,
    steal: options.steal ?? true,
    ...(options.loops === undefined ? {} : { loops: options.loops }),
  })
  return runModes(ids, protocol, asks, {
    seed,
    faults: randomFaults(rnd, ids, 900),
    until: 8000,
    loss: rnd.next() < 0.5 ? 0.05 : 0,
    duplicate: rnd.next() < 0.5 ? 0.05 : 0,
  })
}

/** Entries whose token no GRANT carried: made again on a kept grant (option `burst`). */
export function entriesOnKeptGrants(events: ModeRun['events']): number {
  const granted = new Set<string>()
  let kept = 0
  for (const { event } of events) {
    if (event.type === 'granted') granted.add(`${event.resource}:${event.token}`)
    if (event.type === 'acquired' && !granted.has(`${event.resource}:${event.token}`)) kept++
  }
  return kept
}
