/**
 * Runs a mutual exclusion protocol in the simulator under a workload (who asks when, and how long
 * each holds), releasing on the protocol's own `acquired` events, and judges the run from the
 * trace with `checkMutualExclusion`.
 */
import {
  type NodeId,
  type ProtocolFactory,
  SimNetwork,
  type SimNetworkOptions,
} from '@sd/transport'
import { checkMutualExclusion, type MutexVerdict, type TimedEvent } from '../../src/check.js'
import { DEFAULT_RESOURCE, type MutexRequest } from '../../src/contract.js'

export interface Ask {
  node: NodeId
  /** Virtual time of the acquire request. */
  at: number
  /** How long the node stays in the critical section once it entered. */
  hold: number
  resource?: string
}

export interface MutexRun<Ev = unknown> extends MutexVerdict {
  net: SimNetwork
  /** What the protocol emitted, typed by its event type. */
  events: TimedEvent<Ev>[]
  /** Acquire requests made, and granted (an `acquired` answered them). */
  asked: number
  granted: number
}

export interface RunOptions {
  seed: number
  net?: SimNetworkOptions
  /** Plans faults on the network before it runs (crashes, partitions, restarts...). */
  faults?: (net: SimNetwork) => void
  /** Virtual time to run to; default: until nothing is left to happen. */
  until?: number
}

export function runMutex<Msg, Ev>(
  ids: readonly NodeId[],
  factory: ProtocolFactory<Msg, MutexRequest, Ev>,
  asks: readonly Ask[],
  options: RunOptions,
): MutexRun<Ev> {
  const net = new SimNetwork({ seed: options.seed, ...options.net })
  const events: TimedEvent<Ev>[] = []
  // Per node and resource, the holds of its requests not yet granted, in the order they were made.
  const pendingHolds = new Map<string, number[]>()
  const keyOf = (node: NodeId, resource: string) => `${String(node)}\u0000${resource}`
  let granted = 0
  const onEmit = (node: NodeId, event: Ev, t: number) => {
    events.push({ node, t, event })
    const e = event as { type?: string; resource?: string }
    if (e.type !== 'acquired') return
    const resource = e.resource ?? DEFAULT_RESOURCE
    const hold = pendingHolds.get(keyOf(node, resource))?.shift()
    if (hold === undefined) return // granted without a pending ask: the checker sees it anyway
    granted++
    net.request<MutexRequest>(node, { type: 'release', resource }, t + hold)
  }
  net.launch(ids, factory, { onEmit })
  for (const ask of [...asks].sort((a, b) => a.at - b.at)) {
    const resource = ask.resource ?? DEFAULT_RESOURCE
    net.at(ask.at, () => {
      if (net.isCrashed(ask.node)) return
      const key = keyOf(ask.node, resource)
      pendingHolds.set(key, [...(pendingHolds.get(key) ?? []), ask.hold])
      net.request<MutexRequest>(ask.node, { type: 'acquire', resource })
    })
  }
  options.faults?.(net)
  if (options.until === undefined) net.run()
  else net.run({ until: options.until })
  const crashes = net.trace
    .filter((e) => e.type === 'crash')
    .map((e) => ({ node: (e as { node: NodeId }).node, t: e.t }))
  const verdict = checkMutualExclusion(events, crashes)
  return { ...verdict, net, events, asked: asks.length, granted }
}

/** A random workload: `count` asks spread over `spanMs`, holds of 1..maxHold ms. */
export function randomAsks(
  ids: readonly NodeId[],
  random: () => number,
  count: number,
  spanMs: number,
  maxHold = 5,
): Ask[] {
  return Array.from({ length: count }, () => ({
    node: ids[Math.floor(random() * ids.length)]!,
    at: Math.floor(random() * spanMs),
    hold: 1 + Math.floor(random() * maxHold),
  }))
}
