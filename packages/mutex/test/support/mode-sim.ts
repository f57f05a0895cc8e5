/** A small hand-scripted simulation of `centralized()` for the unit tests of its lock modes. */
import { emitsOf, faultsOf, type NodeId, SimNetwork } from '@sd/transport'
import { ofType } from '@sd/transport/testing'
import {
  type CentralizedEvent,
  type CentralizedOptions,
  centralized,
} from '../../src/centralized/index.js'
import { checkMutualExclusion } from '../../src/check.js'
import type { AcquireRequest } from './mode-runs.js'

/** Nodes 1..n, node 1 coordinating, messages 5 ms on the wire. */
export function modeSim(options: CentralizedOptions = {}, n = 4) {
  const net = new SimNetwork({ seed: 1, latency: 5 })
  net.launch(
    Array.from({ length: n }, (_, i) => i + 1),
    centralized({ coordinator: 1, ...options }),
  )
  const acquire = (node: NodeId, at: number, req: Omit<AcquireRequest, 'type'> = {}) =>
    net.request(node, { type: 'acquire', ...req }, at)
  const release = (node: NodeId, at: number, resource?: string) =>
    net.request(node, { type: 'release', resource }, at)
  const run = (until = 2000) => {
    net.run({ until })
    const events = emitsOf<CentralizedEvent>(net.trace)
    /** The events of `node` of `type`, with their times. */
    const of = <T extends CentralizedEvent['type']>(node: NodeId, type: T) =>
      ofType(events, type)
        .filter((e) => e.node === node)
        .map((e) => ({ t: e.t, ...e.event }))
    /** Who entered, in order. */
    const entered = events.flatMap((e) => (e.event.type === 'acquired' ? [e.node] : []))
    const verdict = checkMutualExclusion(events, faultsOf(net.trace))
    return { events, of, entered, violations: verdict.violations }
  }
  return { net, acquire, release, run }
}
