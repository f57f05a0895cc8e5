import {
  type Ctx,
  InvalidArgumentError,
  isNonNegInt,
  type NodeId,
  oneOf,
  SimNetwork,
  shape,
  snapshotList,
  type TraceEvent,
} from '@sd/transport'
import { planFaults } from '../fault-plan.js'
import type { Scenario, Unfinished } from '../scenario.js'
import { appendOnly, keepSideState } from '../side-state.js'
import { PAUSE_SLOW } from './lamport.js'

type Rumour = { type: 'rumour'; id: number }
/** A trace's messages are plain JSON: read a rumour's id only from what is one. */
const isRumour = shape({ type: oneOf('rumour'), id: isNonNegInt })

/** Flooding: on first receipt of a rumour, deliver it and forward it to every peer but the sender. */
function flooder(origin: NodeId, rumours: readonly number[], every: number) {
  return (self: NodeId) => {
    const seen = new Set<number>()
    return {
      start(ctx: Ctx<Rumour, { delivered: number }>) {
        if (self === origin) ctx.setTimer('next', 0)
      },
      onTimer(_key: string, ctx: Ctx<Rumour, { delivered: number }>) {
        const id = rumours[seen.size]
        if (id === undefined) return
        seen.add(id)
        ctx.emit({ delivered: id })
        ctx.broadcast({ type: 'rumour', id })
        if (seen.size < rumours.length) ctx.setTimer('next', every)
      },
      onMessage(from: NodeId, msg: Rumour, ctx: Ctx<Rumour, { delivered: number }>) {
        if (seen.has(msg.id)) return
        seen.add(msg.id)
        ctx.emit({ delivered: msg.id })
        for (const peer of ctx.peers) if (peer !== from) ctx.send(peer, msg)
      },
      // The rumours seen, ascending: what the lab's checkpoints save and put back.
      snapshot: () => [...seen].sort((a, b) => a - b),
      restore(saved: unknown) {
        const ids = snapshotList<unknown>(saved, 'flooder', 'the rumour ids seen')
        if (!ids.every(isNonNegInt))
          throw new InvalidArgumentError('flooder: rumour ids are integers')
        for (const id of ids) seen.add(id)
      },
    }
  }
}

/**
 * Node 1 floods three rumours, 50 ms apart, over lossy links (10%). The upper half of the nodes
 * is cut off from 40 ms to 90 ms, so rumour 2 cannot reach it; rumours 1 and 3 reach every live
 * node through redundant paths. `--crash` takes nodes down from the start.
 */
export const flood = {
  name: 'flood',
  title: 'flooding broadcast over lossy links, with a partition and crashes',
  description:
    'Node 1 floods three rumours, 50 ms apart, over links that lose 10% of messages. The upper half of the nodes is cut off from 40 ms to 90 ms, so rumour 2 cannot reach it, while rumours 1 and 3 reach every live node through redundant paths. Checks that no node delivers a rumour twice and that none crosses the partition.',
  crashes: 'crashed nodes are down from the start (t=0); a crashed node 1 floods nothing',
  pause: { accepts: PAUSE_SLOW },
  defaultN: 5,
  minN: 2,
  maxN: 64,
  run({ n, seed, crash, faults }) {
    const ids = Array.from({ length: n }, (_, i) => i + 1)
    const rumours = [1, 2, 3]
    const net = new SimNetwork({ seed, latency: { kind: 'uniform', min: 1, max: 10 }, loss: 0.1 })
    const delivered = new Map<NodeId, number[]>(ids.map((id) => [id, []]))
    const violations: string[] = []
    const far: NodeId[] = ids.filter((id) => id > Math.ceil(n / 2))
    net.launch(ids, flooder(1, rumours, 50), {
      onEmit: (node, { delivered: id }, t) => {
        const list = delivered.get(node)!
        if (list.includes(id)) violations.push(`node ${node} delivered rumour ${id} twice`)
        list.push(id)
        if (id === 2 && far.includes(node) && t < 90) {
          violations.push(`node ${node} got rumour 2 across the partition at ${t} ms`)
        }
      },
    })
    // The lists only grow; nothing the run does next reads them.
    keepSideState(net, appendOnly([...delivered.values(), violations]))
    for (const id of crash) net.crash(id)
    net.at(40, () =>
      net.partition(
        ids.filter((id) => !far.includes(id)),
        far,
      ),
    )
    net.at(90, () => net.heal())
    planFaults(net, faults ?? [])

    net.run()

    const live = ids.filter((id) => !crash.includes(id))
    const reach = rumours.map((id) => ({
      rumour: id,
      reached: live.filter((node) => delivered.get(node)!.includes(id)),
      missed: live.filter((node) => !delivered.get(node)!.includes(id)),
    }))
    for (const node of crash) {
      if (delivered.get(node)!.length > 0)
        violations.push(`crashed node ${node} delivered a rumour`)
    }
    const stats = net.stats
    const unfinished: Unfinished[] = []
    for (const r of reach)
      for (const node of r.missed)
        unfinished.push(missedRumour(net.trace, r.rumour, node, crash, far))
    return {
      net,
      violations,
      liveness: {
        property:
          'every live node gets every rumour, except where loss or the partition (by design) stopped every copy',
        unfinished,
      },
      result: {
        origin: 1,
        partitioned: far,
        partitionWindowMs: [40, 90],
        reach,
        perNode: Object.fromEntries(delivered),
      },
      summary: [
        ...reach.map(
          (r) =>
            `rumour ${r.rumour}: reached ${r.reached.length}/${live.length} live nodes${r.missed.length ? ` (missed: ${r.missed.join(', ')})` : ''}`,
        ),
        `messages: ${stats.sent} sent, ${stats.delivered} delivered, ${stats.dropped.loss} lost, ${stats.dropped.partition} cut by the partition, ${stats.dropped['receiver-crashed']} to crashed nodes`,
      ],
    }
  },
} satisfies Scenario

/**
 * Why a live node missed a rumour. Flooding is best effort (no retransmission), so a rumour
 * whose every copy to the node was lost, or cut by the partition, is missed by design; one that
 * was never sent to it while the origin was up is a failure.
 */
function missedRumour(
  trace: readonly TraceEvent[],
  rumour: number,
  node: NodeId,
  crash: readonly NodeId[],
  far: readonly NodeId[],
): Unfinished {
  const what = `rumour ${rumour} at node ${String(node)}`
  if (crash.includes(1))
    return { node, what, why: 'node 1, the origin, is down: nothing is flooded', expected: true }
  const copies = new Set(
    trace.flatMap((e) =>
      e.type === 'send' && e.to === node && isRumour(e.msg) && e.msg.id === rumour ? [e.id] : [],
    ),
  )
  const drops = trace.flatMap((e) => (e.type === 'drop' && copies.has(e.id) ? [e.reason] : []))
  if (copies.size > 0 && drops.length === copies.size) {
    const cut = drops.includes('partition')
    return {
      node,
      what,
      why: cut
        ? `every copy sent to it was cut by the partition${rumour === 2 && far.includes(node) ? " (the scenario's point)" : ''} or lost`
        : 'every copy sent to it was lost (10% loss; flooding does not retransmit)',
      expected: true,
    }
  }
  return {
    node,
    what,
    why:
      copies.size === 0
        ? 'no copy was ever sent to it'
        : 'a copy was sent and not dropped, yet never delivered',
    expected: false,
  }
}
