import type { NodeId } from '../ids.js'
import type { ProtocolFactory } from '../protocol.js'
import { SimNetwork } from '../sim/network.js'
import type { EmitListener, LaunchedGroup, RunResult, SimNetworkOptions } from '../sim/options.js'
import type { TimedEvent } from '../sim/trace.js'

export interface RunInSimOptions<Req, Ev> {
  seed: number | string
  /** Network settings (latency, loss...); the seed is `seed`. */
  net?: Omit<SimNetworkOptions, 'seed'>
  /** Plans faults and requests before the run (crashes, partitions, `group.request`...). */
  plan?: (net: SimNetwork, group: LaunchedGroup<Req, Ev>) => void
  /** Also hears each event as it is emitted (a workload that reacts to them). */
  onEmit?: EmitListener<Ev>
  /** Virtual time to run to; default: until nothing is left to happen. */
  until?: number
}

export interface SimRunOf<Req, Ev> {
  net: SimNetwork
  group: LaunchedGroup<Req, Ev>
  /** What the protocol emitted, from the start, typed by its event type. */
  events: TimedEvent<Ev>[]
  result: RunResult
}

/**
 * The run every protocol's tests start from: a seeded network, the protocol launched on `ids`,
 * its events collected typed (those emitted while the nodes start included), the plan, the run.
 */
export function runInSim<Msg, Req, Ev>(
  ids: readonly NodeId[],
  factory: ProtocolFactory<Msg, Req, Ev>,
  options: RunInSimOptions<Req, Ev>,
): SimRunOf<Req, Ev> {
  const net = new SimNetwork({ ...options.net, seed: options.seed })
  const events: TimedEvent<Ev>[] = []
  const group = net.launch(ids, factory, {
    onEmit: (node, event, t) => {
      events.push({ node, t, event })
      options.onEmit?.(node, event, t)
    },
  })
  options.plan?.(net, group)
  const result = options.until === undefined ? net.run() : net.run({ until: options.until })
  return { net, group, events, result }
}
