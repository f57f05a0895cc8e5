/** Scenarios of the test protocols that the explorer's tests share (stateless and stateful). */
import { causalBroadcast, ricartAgrawala } from '../../../../../test-support/explore-protocols.js'
import type { ExploreScenario } from '../../../src/explore/index.js'
import type { NodeId, ProtocolFactory, SimNetwork } from '../../../src/index.js'

// biome-ignore lint/suspicious/noExplicitAny: any test protocol
export type AnyFactory = ProtocolFactory<any, any, string>

export const launch = (ids: readonly NodeId[], factory: AnyFactory) => (net: SimNetwork) => {
  net.launch(ids, factory)
}

export const ids = (n: number): NodeId[] => Array.from({ length: n }, (_, i) => i + 1)

/** Each node's emitted strings. */
export const emitted = (events: ReadonlyArray<{ node: NodeId; event: unknown }>, node: NodeId) =>
  events.filter((e) => e.node === node).map((e) => String(e.event))

/** n nodes of the test Ricart-Agrawala; with `tieBreak` false, two can enter at once. */
export const mutex = (n: number, tieBreak: boolean): ExploreScenario => ({
  setup: launch(ids(n), ricartAgrawala(tieBreak)),
  invariant: ({ events }) => {
    const inside = events.filter((e) => e.event === 'enter').map((e) => e.node)
    return inside.length > 1
      ? `${inside.join(' and ')} are both in the critical section`
      : undefined
  },
})

/** Causal broadcast of a then b; delivering on arrival breaks causal order. */
export const causal = (onArrival: boolean): ExploreScenario => ({
  setup: launch([1, 2, 3], causalBroadcast(onArrival)),
  invariant: ({ events }) => {
    for (const node of [1, 2, 3]) {
      const seen = emitted(events, node)
      const a = seen.indexOf('deliver a')
      const b = seen.indexOf('deliver b')
      if (b >= 0 && (a < 0 || a > b)) return `node ${node} delivered b before a, which caused it`
    }
    return undefined
  },
})
