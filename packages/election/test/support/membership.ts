/** The agreed membership composed with the majority election that picks its leader, for the tests. */
import { compose, type NodeId, type ProtocolFactory } from '@sd/transport'
import { majorityElection } from '../../src/majority/index.js'
import type { MembershipEvent } from '../../src/membership/events.js'
import type { AgreedMembershipSettings } from '../../src/membership/options.js'
import { agreedMembershipWith } from '../../src/membership/protocol.js'

export const INTERVAL = 50
export const TIMEOUT = 250

/**
 * One node: the election's `leader` / `leader-lost` events drive the view protocol, and a node
 * out of the group resigns a leadership it may hold (it is about to stop).
 */
export function memberNode(settings: AgreedMembershipSettings) {
  const factory = (self: NodeId) =>
    compose(
      {
        election: majorityElection({ heartbeat: { intervalMs: INTERVAL, timeoutMs: TIMEOUT } })(
          self,
        ),
        membership: agreedMembershipWith(settings)(self),
      },
      {
        wiring: [
          {
            from: 'election',
            to: 'membership',
            map: (e) => (e.type === 'leader' || e.type === 'leader-lost' ? e : undefined),
          },
          {
            from: 'membership',
            to: 'election',
            map: (e: MembershipEvent) =>
              e.type === 'left' || e.type === 'not-member'
                ? { type: 'resign' as const }
                : undefined,
          },
        ],
      },
    )
  return factory satisfies ProtocolFactory<unknown, unknown, unknown>
}
