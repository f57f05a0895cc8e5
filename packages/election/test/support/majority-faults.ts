/**
 * Random fault plans for the majority election, and what the run must satisfy beyond
 * `checkElection`: no node leads while it is cut off from a majority (after a grace period), and
 * agreement on one leader soon after the last fault.
 */
import { createRandom, type LinkSettings, type NodeId, type SimNetwork } from '@sd/transport'
import type { TimedEvent } from '../../src/check.js'
import { eventFields } from '../../src/event-fields.js'

export interface ChaosOptions {
  /** The faults happen in [0, healAt); at healAt the network heals and every node restarts. */
  healAt: number
  /** Mean gap between two faults, ms. */
  meanGapMs: number
  /** The links' normal behaviour, restored at healAt. */
  link: LinkSettings
  /** A slow link's latency range, ms. */
  slowMs: { min: number; max: number }
}

/**
 * Plans random faults, decided when they happen from a PRNG seeded by `seed`: partitions into
 * two or three sides (of any sizes, so minorities and majorities), heals, crashes (also inside a
 * step, before its writes commit), restarts with storage kept, and slow or lossy links.
 */
export function planChaos(
  net: SimNetwork,
  ids: readonly NodeId[],
  seed: number,
  options: ChaosOptions,
): void {
  const rnd = createRandom(`majority-chaos/${seed}`)
  const pick = <T>(list: readonly T[]): T => list[rnd.int(0, list.length - 1)]!
  const crashed = () => ids.filter((id) => net.isCrashed(id))
  const live = () => ids.filter((id) => !net.isCrashed(id))
  const slowLinks = new Set<string>()
  const action = () => {
    const r = rnd.next()
    if (r < 0.3) {
      const shuffled = [...ids]
      for (let i = shuffled.length - 1; i > 0; i--) {
        const j = rnd.int(0, i)
        ;[shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!]
      }
      const sides = rnd.next() < 0.75 ? 2 : 3
      const cuts = [...new Set([rnd.int(1, ids.length - 1), rnd.int(1, ids.length - 1)])]
        .slice(0, sides - 1)
        .sort((a, b) => a - b)
      const groups: NodeId[][] = []
      let from = 0
      for (const cut of [...cuts, ids.length]) {
        groups.push(shuffled.slice(from, cut))
        from = cut
      }
      net.partition(...groups)
    } else if (r < 0.45) {
      net.heal()
    } else if (r < 0.58) {
      const up = live()
      if (up.length > 0) net.crash(pick(up))
    } else if (r < 0.63) {
      const up = live()
      if (up.length > 0) net.crashBeforeCommit(pick(up))
    } else if (r < 0.78) {
      const down = crashed()
      if (down.length > 0) net.restart(pick(down))
    } else if (r < 0.92) {
      const a = pick(ids)
      const b = pick(ids.filter((id) => id !== a))
      const { min, max } = options.slowMs
      net.setLink(a, b, { latency: { kind: 'uniform', min, max }, loss: rnd.next() * 0.3 })
      slowLinks.add(JSON.stringify([a, b]))
    } else {
      for (const key of slowLinks) {
        const [a, b] = JSON.parse(key) as [NodeId, NodeId]
        net.setLink(a, b, { latency: options.link.latency ?? 1, loss: options.link.loss ?? 0 })
      }
      slowLinks.clear()
    }
  }
  let t = 0
  for (;;) {
    t += -options.meanGapMs * Math.log(1 - rnd.next())
    if (t >= options.healAt) break
    net.at(t, action)
  }
  net.at(options.healAt, () => {
    net.heal()
    for (const id of ids) {
      if (net.isCrashed(id)) net.restart(id)
      net.crashBeforeCommit(id, () => false) // drop a plan still waiting
    }
    for (const key of slowLinks) {
      const [a, b] = JSON.parse(key) as [NodeId, NodeId]
      net.setLink(a, b, { latency: options.link.latency ?? 1, loss: options.link.loss ?? 0 })
    }
  })
}

export interface Interval {
  from: number
  to: number
}

/** Who could talk to whom from `t` on: the sides of the partition and the crashed nodes. */
interface Topology {
  t: number
  group: Map<NodeId, number>
  down: Set<NodeId>
}

/** The topology changes of a run, read from the simulator's trace. */
function topologies(net: SimNetwork, ids: readonly NodeId[]): Topology[] {
  let group = new Map<NodeId, number>(ids.map((id) => [id, -1]))
  let down = new Set<NodeId>()
  const out: Topology[] = [{ t: 0, group, down }]
  for (const e of net.trace) {
    if (e.type === 'partition') {
      group = new Map(ids.map((id) => [id, -1]))
      e.groups.forEach((g, i) => {
        for (const id of g) group.set(id, i)
      })
    } else if (e.type === 'heal') {
      group = new Map(ids.map((id) => [id, -1]))
    } else if (e.type === 'crash') {
      down = new Set([...down, e.node])
    } else if (e.type === 'restart') {
      down = new Set([...down].filter((id) => id !== e.node))
    } else continue
    out.push({ t: e.t, group, down })
  }
  return out
}

/**
 * The lease rule, as the test states it: a node leads at time t only if a majority of the members
 * (itself included) were running and on its side of the partition at some moment of
 * [t - timeoutMs, t], each at its own moment. So a node that stays on a side without a running
 * majority stops leading within timeoutMs. Returns the moments that break it, checked at every
 * point where the set of nodes reached in the window can shrink.
 */
export function leasesBroken(
  net: SimNetwork,
  ids: readonly NodeId[],
  timeoutMs: number,
  end: number,
): { node: NodeId; t: number; reached: NodeId[] }[] {
  const majority = Math.floor(ids.length / 2) + 1
  const topo = topologies(net, ids)
  const reached = (node: NodeId, t: number): NodeId[] => {
    const seen = new Set<NodeId>()
    topo.forEach((s, i) => {
      const until = topo[i + 1]?.t ?? Number.POSITIVE_INFINITY
      if (until < t - timeoutMs || s.t > t) return
      if (s.down.has(node)) return
      for (const id of ids) {
        if (!s.down.has(id) && s.group.get(id) === s.group.get(node)) seen.add(id)
      }
    })
    return [...seen]
  }
  const broken: { node: NodeId; t: number; reached: NodeId[] }[] = []
  const eps = 1e-3
  for (const [node, intervals] of leadership(net, end)) {
    for (const { from, to } of intervals) {
      const moments = [from, ...topo.flatMap((s) => [s.t + eps, s.t + timeoutMs + eps])]
      for (const t of moments) {
        if (t < from || t >= to) continue
        const r = reached(node, t)
        if (r.length < majority) broken.push({ node, t, reached: r })
      }
    }
  }
  return broken
}

/**
 * Per node, the periods in which it considers itself leader: from its `leader` event naming
 * itself to its next `leader` / `leader-lost` event, or its crash, or `end`. Read from the trace,
 * where emits and crashes are in the order they happened.
 */
export function leadership(net: SimNetwork, end: number): Map<NodeId, Interval[]> {
  const open = new Map<NodeId, number>()
  const out = new Map<NodeId, Interval[]>()
  const close = (node: NodeId, t: number) => {
    const since = open.get(node)
    if (since === undefined) return
    const list = out.get(node) ?? []
    list.push({ from: since, to: t })
    out.set(node, list)
    open.delete(node)
  }
  for (const e of net.trace) {
    if (e.type === 'crash') close(e.node, e.t)
    if (e.type !== 'emit') continue
    const event = eventFields(e.event)
    if (event?.type !== 'leader' && event?.type !== 'leader-lost') continue
    close(e.node, e.t)
    if (event.type === 'leader' && event.leader === e.node) open.set(e.node, e.t)
  }
  for (const node of [...open.keys()]) close(node, end)
  return out
}

/** When the views of the nodes last changed: the time of the last leader / leader-lost event. */
export function lastViewChange(events: readonly TimedEvent[]): number {
  let last = 0
  for (const { t, event } of events) {
    const type = eventFields(event)?.type
    if (type === 'leader' || type === 'leader-lost') last = Math.max(last, t)
  }
  return last
}
