/** The agreed membership composed with the majority election that picks its leader, for the tests. */
import { compose, emitsOf, type NodeId, type ProtocolFactory, type SimNetwork } from '@sd/transport'
import type { TimedEvent } from '../../src/check.js'
import { majorityElection } from '../../src/majority/index.js'
import type { MajorityOptions } from '../../src/majority/options.js'
import type { MembershipEvent } from '../../src/membership/events.js'
import type { AgreedMembershipSettings } from '../../src/membership/options.js'
import { agreedMembershipWith } from '../../src/membership/protocol.js'
import { electionToMembership, membershipToElection } from '../../src/membership/wiring.js'

export const INTERVAL = 50
export const TIMEOUT = 250

/**
 * One node: the election's `leader` / `leader-lost` events drive the view protocol, and every
 * installed view sets the group the election counts (a joiner takes no part in the election
 * before its first view, a node out of the view none after).
 */
/**
 * How the election is wired: over the views (`views`, the package's wiring), over the installed
 * views alone without the accepted ones (`installed`, to show what rule 4 of view.ts prevents), or
 * over the transport's fixed peer list (`peers`, as before the election followed the view).
 */
export type ElectionWiring = 'views' | 'installed' | 'peers'

export function memberNode(
  settings: AgreedMembershipSettings,
  wiring: ElectionWiring = 'views',
  election: Omit<MajorityOptions, 'heartbeat' | 'awaitView'> = {},
) {
  const followViews = wiring !== 'peers'
  const factory = (self: NodeId) =>
    compose(
      {
        election: majorityElection({
          ...election,
          heartbeat: { intervalMs: INTERVAL, timeoutMs: TIMEOUT },
          awaitView: followViews,
        })(self),
        membership: agreedMembershipWith(settings)(self),
      },
      {
        wiring: [
          { from: 'election', to: 'membership', map: electionToMembership },
          {
            from: 'membership',
            to: 'election',
            // The election over the transport's fixed peer list (for comparison): a leader out of
            // the group can only resign, at the membership's next tick.
            map: followViews
              ? (e: MembershipEvent) =>
                  wiring === 'installed' && e.type === 'acknowledged'
                    ? undefined
                    : membershipToElection(e)
              : (e: MembershipEvent) =>
                  e.type === 'left' || e.type === 'not-member'
                    ? { type: 'resign' as const }
                    : undefined,
          },
        ],
      },
    )
  return factory satisfies ProtocolFactory<unknown, unknown, unknown>
}

/**
 * The events of one composed child, read from the events' `{ proto, event }` shape (a wrapper
 * around the composition hides it from the trace's `proto` field).
 */
export function childEvents<Ev>(net: SimNetwork, proto: string): TimedEvent<Ev>[] {
  return emitsOf<{ proto?: string; event?: Ev }>(net.trace)
    .filter((e) => e.event.proto === proto)
    .map((e) => ({ node: e.node, t: e.t, event: e.event.event as Ev }))
}
