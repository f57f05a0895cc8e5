/**
 * SWIM membership runs for the property tests: a seeded group, processes joining through seeds,
 * leaving and crashing at planned times, every event kept with its node and time; and the
 * properties of the eventually consistent view, checked as lists of violations (empty: held).
 */
import { createRandom, type NodeId, SimNetwork, sortNodeIds } from '@sd/transport'
import type { SwimEvent } from '../../src/detector/swim/events.js'
import { swim } from '../../src/detector/swim/index.js'
import { resolveOptions, type SwimOptions } from '../../src/detector/swim/options.js'
import { suspicionBounds } from '../../src/detector/swim/suspicion.js'

export interface ChurnScenario {
  seed: number
  options: SwimOptions
  loss: number
  /** Members launched at 0, as a group. */
  initial: NodeId[]
  joins: { node: NodeId; at: number; seeds: NodeId[] }[]
  leaves: { node: NodeId; at: number }[]
  crashes: { node: NodeId; at: number }[]
  /** Crashed members brought back (a fresh instance, its old incarnation forgotten). */
  restarts?: { node: NodeId; at: number }[]
  /** One-way links whose messages arrive late (stale gossip). */
  slow: { from: NodeId; to: NodeId; min: number; max: number }[]
  /** The last join, leave or crash. */
  churnEnd: number
  untilMs: number
}

export interface ChurnRun {
  s: ChurnScenario
  net: SimNetwork
  events: { node: NodeId; t: number; event: SwimEvent }[]
  /** Members neither crashed nor left at the end. */
  live: NodeId[]
  /** Periods each node ran (from its start to its crash, its leave's end or the end). */
  nodePeriods: number
}

/**
 * Every live member is in every live member's view within this long after the churn stops: two
 * probe rounds to find a crash, its longest suspicion, and 12 periods of gossip (as the crash
 * detection bound of swim.property.test.ts), for the largest group the run had.
 */
export function convergenceBound(n: number, options: SwimOptions): number {
  const s = resolveOptions(options)
  const bounds = suspicionBounds(n, s.periodMs, s.suspicionMult, s.suspicionMaxMult, true)
  return (2 * n + 12) * s.periodMs + bounds.maxMs
}

/** 3 to 6 members; 1 to 3 join through two seeds (one of which stays); one leaves, one crashes. */
export function churnScenario(seed: number, options: SwimOptions, loss: number): ChurnScenario {
  const rnd = createRandom(`swim-churn/${seed}`)
  const initial: NodeId[] = Array.from({ length: rnd.int(3, 6) }, (_, i) => i + 1)
  const leaver = initial[rnd.int(0, initial.length - 1)]!
  const others = initial.filter((id) => id !== leaver)
  const victim = others[rnd.int(0, others.length - 1)]!
  const stayers = others.filter((id) => id !== victim)
  const joins = Array.from({ length: rnd.int(1, 3) }, (_, i) => ({
    node: 11 + i,
    at: rnd.int(300, 3000),
    // The first seed may leave or crash: the second one stays.
    seeds: [initial[rnd.int(0, initial.length - 1)]!, stayers[rnd.int(0, stayers.length - 1)]!],
  }))
  const leaves = [{ node: leaver, at: rnd.int(500, 3500) }]
  const crashes = [{ node: victim, at: rnd.int(500, 3500) }]
  const churnEnd = Math.max(...[...joins, ...leaves, ...crashes].map((e) => e.at))
  const n = initial.length + joins.length
  const untilMs = churnEnd + convergenceBound(n, options) + 2000
  return { seed, options, loss, initial, joins, leaves, crashes, slow: [], churnEnd, untilMs }
}

/**
 * A joiner crashes soon after its join while one link delivers seconds late: its `alive` news
 * still on that link arrives after the member at the end has declared it dead.
 */
export function staleScenario(seed: number, options: SwimOptions): ChurnScenario {
  const rnd = createRandom(`swim-stale/${seed}`)
  const initial: NodeId[] = [1, 2, 3, 4, 5]
  const at = rnd.int(300, 800)
  const slow = [{ from: 2, to: 3, min: 4000, max: 6000 }]
  return {
    seed,
    options,
    loss: 0,
    initial,
    joins: [{ node: 11, at, seeds: [rnd.int(1, 5)] }],
    leaves: [],
    crashes: [{ node: 11, at: at + rnd.int(200, 600) }],
    slow,
    churnEnd: at + 600,
    untilMs: 12_000,
  }
}

export function runChurn(s: ChurnScenario): ChurnRun {
  const net = new SimNetwork({
    seed: s.seed,
    latency: { kind: 'uniform', min: 1, max: 5 },
    loss: s.loss,
    trace: false,
  })
  const events: ChurnRun['events'] = []
  const onEmit = (node: NodeId, event: SwimEvent, t: number) => events.push({ node, t, event })
  net.launch(s.initial, swim(s.options), { onEmit })
  for (const j of s.joins) {
    net.addNode(j.node)
    net.at(j.at, () => net.launch([j.node], swim({ ...s.options, seeds: j.seeds }), { onEmit }))
  }
  for (const l of s.slow) {
    const latency = { kind: 'uniform' as const, min: l.min, max: l.max }
    net.setLink(l.from, l.to, { latency, loss: s.loss, fifo: false }, { oneWay: true })
  }
  for (const l of s.leaves) net.at(l.at, () => net.request(l.node, { type: 'leave' }))
  for (const c of s.crashes) net.at(c.at, () => net.crash(c.node))
  for (const r of s.restarts ?? []) net.at(r.at, () => net.restart(r.node))
  net.run({ until: s.untilMs })
  const back = new Set((s.restarts ?? []).map((r) => r.node))
  const gone = new Set([...s.leaves, ...s.crashes].map((e) => e.node).filter((id) => !back.has(id)))
  const live = sortNodeIds(
    [...s.initial, ...s.joins.map((j) => j.node)].filter((id) => !gone.has(id)),
  )
  const periodMs = resolveOptions(s.options).periodMs
  let nodePeriods = 0
  for (const id of [...s.initial, ...s.joins.map((j) => j.node)]) {
    const start = s.joins.find((j) => j.node === id)?.at ?? 0
    const stopped = events.find(
      (e) => e.node === id && e.event.type === 'member-left' && e.event.node === id,
    )?.t
    const end = stopped ?? s.crashes.find((c) => c.node === id)?.at ?? s.untilMs
    nodePeriods += (end - start) / periodMs
  }
  return { s, net, events, live, nodePeriods }
}

/** Each node's last view event. */
export function lastViews(run: ChurnRun): Map<NodeId, { t: number; members: NodeId[] }> {
  const out = new Map<NodeId, { t: number; members: NodeId[] }>()
  for (const { node, t, event } of run.events) {
    if (event.type === 'view') out.set(node, { t, members: event.members })
  }
  return out
}

/** Every live member holds exactly the live members, and got there by `deadline`. */
export function convergenceViolations(run: ChurnRun, deadline: number): string[] {
  const out: string[] = []
  const views = lastViews(run)
  for (const id of run.live) {
    const v = views.get(id)
    if (v === undefined) out.push(`${id} has no view`)
    else if (JSON.stringify(v.members) !== JSON.stringify(run.live)) {
      out.push(`${id} sees ${JSON.stringify(v.members)}, live are ${JSON.stringify(run.live)}`)
    } else if (v.t > deadline) out.push(`${id} converged at ${v.t}, after ${deadline}`)
  }
  return out
}

/** A member declared dead comes back into a view only in a higher incarnation (a rejoin). */
export function resurrectionViolations(run: ChurnRun): string[] {
  const out: string[] = []
  const deadAt = new Map<string, number>()
  for (const { node, t, event } of run.events) {
    const key = `${node}/${event.type === 'member-left' || event.type === 'member-joined' ? event.node : ''}`
    if (event.type === 'member-left' && event.reason === 'dead') deadAt.set(key, event.incarnation)
    if (event.type === 'member-joined') {
      const dead = deadAt.get(key)
      if (dead !== undefined && event.incarnation <= dead) {
        out.push(`${event.node} back in ${node}'s view at ${t}, incarnation ${event.incarnation}`)
      }
    }
  }
  return out
}

/** A member that left: in no view at the end, never declared dead, not suspected after `from`. */
export function leaveViolations(run: ChurnRun, suspectedAfter: 'request' | 'stop'): string[] {
  const out: string[] = []
  const views = lastViews(run)
  for (const { node: leaver, at } of run.s.leaves) {
    const stop = run.events.find(
      (e) => e.node === leaver && e.event.type === 'member-left' && e.event.node === leaver,
    )
    if (stop === undefined) out.push(`${leaver} never finished its leave`)
    const from = suspectedAfter === 'request' ? at : (stop?.t ?? at)
    for (const { node, t, event } of run.events) {
      if (!('node' in event) || event.node !== leaver || node === leaver) continue
      if (event.type === 'suspect' && t >= from) out.push(`${node} suspected ${leaver} at ${t}`)
      if (event.type === 'dead') out.push(`${node} declared ${leaver} dead at ${t}`)
    }
    for (const [node, v] of views) {
      if (run.live.includes(node) && v.members.includes(leaver))
        out.push(`${leaver} still in ${node}'s view`)
    }
  }
  return out
}
