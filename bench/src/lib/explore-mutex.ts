/** The mutex scenario the explore benches search: `n` nodes each ask once at 0 ms and release 1 ms after entering. */
import type { MutexRequest } from '@sd/mutex'
import type { NodeId, ProtocolFactory, SimNetwork } from '@sd/transport'
import type { ExploreScenario } from '@sd/transport/explore'

export const ids = (n: number): NodeId[] => Array.from({ length: n }, (_, i) => i + 1)

export function mutexScenario<Msg, Ev extends { type: string }>(
  n: number,
  factory: ProtocolFactory<Msg, MutexRequest, Ev>,
): ExploreScenario {
  return {
    setup(net: SimNetwork) {
      net.launch(ids(n), factory, {
        onEmit: (node, event, t) => {
          if (event.type === 'acquired') net.request<MutexRequest>(node, { type: 'release' }, t + 1)
        },
      })
      for (const id of ids(n)) net.request<MutexRequest>(id, { type: 'acquire' })
    },
    invariant: () => undefined,
    history: () => null,
  }
}
