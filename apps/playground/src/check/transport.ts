/** Check spec for the transport package: flooding broadcast. */
import type { Ctx, NodeId, Protocol, TimedEvent } from '@sd/transport'
import type { ExploreScenario } from '@sd/transport/explore'
import type { CheckSpec } from './spec.js'

type Rumour = { type: 'rumour'; id: number }
type Delivered = { delivered: number }

const ids = (n: number): NodeId[] => Array.from({ length: n }, (_, i) => i + 1)

/**
 * The playground's flooding (scenarios/flood.ts), one rumour: the origin delivers it on a timer
 * at 0 ms and sends it to every peer; a node that gets it for the first time delivers it and
 * forwards it to every peer but the sender; a copy it has seen is dropped.
 */
function flooder(origin: NodeId) {
  return (self: NodeId): Protocol<Rumour, never, Delivered> => {
    const seen = new Set<number>()
    return {
      start(ctx) {
        if (self === origin) ctx.setTimer('next', 0)
      },
      onTimer(_key, ctx: Ctx<Rumour, Delivered>) {
        seen.add(1)
        ctx.emit({ delivered: 1 })
        ctx.broadcast({ type: 'rumour', id: 1 })
      },
      onMessage(from, msg, ctx) {
        if (seen.has(msg.id)) return
        seen.add(msg.id)
        ctx.emit({ delivered: msg.id })
        for (const peer of ctx.peers) if (peer !== from) ctx.send(peer, msg)
      },
    }
  }
}

const deliveries = (events: ReadonlyArray<TimedEvent<Delivered>>, node: NodeId) =>
  events.filter((e) => e.node === node && e.event.delivered === 1).length

export const floodCheck: CheckSpec = {
  scenario: 'flood',
  what: 'node 1 floods one rumour (no loss, no partition); no node delivers it twice, and at the end every live node has it. With --faults 1 (one loss, duplicate or crash, from n = 3: two paths reach every node): no node delivers twice, if any live node has the rumour every live node has it, and all have it unless node 1 crashed before sending',
  defaultN: 3,
  minN: 2,
  maxN: 4,
  defaults: { depth: 40 },
  build(n): ExploreScenario<Delivered> {
    const nodes = ids(n)
    return {
      setup(net) {
        net.launch(nodes, flooder(1))
      },
      invariant({ net, events }) {
        for (const id of nodes)
          if (deliveries(events, id) > 1) return `node ${String(id)} delivered the rumour twice`
        if (net.choices().length > 0) return undefined
        // The end: nothing in flight, no timer left.
        const live = nodes.filter((id) => !net.isCrashed(id))
        const have = live.filter((id) => deliveries(events, id) === 1)
        const missing = live.filter((id) => deliveries(events, id) === 0)
        if (have.length > 0 && missing.length > 0)
          return `live node ${missing.map(String).join(', ')} never got the rumour that live node ${String(have[0])} delivered`
        if (!net.isCrashed(1) && missing.length > 0)
          return `node 1 is live but nobody got the rumour`
        if (net.isCrashed(1) && deliveries(events, 1) === 1 && missing.length > 0)
          return `node 1 delivered the rumour before it crashed, yet live node ${String(missing[0])} never got it`
        return undefined
      },
    }
  },
}
