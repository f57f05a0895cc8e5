/**
 * Liveness goals of the `sd check` specs (◇goal on every fair run; see the transport README,
 * "Liveness"). Each reads the state as the invariants do: each node's own events, and the
 * network (who crashed, what was lost), both part of the stateful search's state.
 */
import { agreedLeader, checkElection } from '@sd/election'
import type { NodeId, SimNetwork } from '@sd/transport'
import type { ExploreState, LivenessGoal } from '@sd/transport/explore'

/**
 * The type of an emitted event, also when wrapped: by vector clocks (`{ event, vc }`) or by a
 * composition (`{ proto, event }`).
 */
export function typeOf(event: unknown): string | undefined {
  if (typeof event !== 'object' || event === null) return undefined
  const e = event as { type?: unknown; event?: unknown }
  return typeof e.type === 'string' ? e.type : typeOf(e.event)
}

const emitted = (state: ExploreState, node: NodeId, type: string) =>
  state.events.filter((e) => e.node === node && typeOf(e.event) === type).length

/** What excuses a goal: the faults the algorithm does not promise to survive. */
export type Excuse = 'loss-or-crash' | 'crash' | 'nothing'

function excused(net: SimNetwork, nodes: readonly NodeId[], excuse: Excuse): boolean {
  if (excuse === 'nothing') return false
  const crashed = nodes.some((id) => net.isCrashed(id))
  return crashed || (excuse === 'loss-or-crash' && net.stats.dropped.loss > 0)
}

/**
 * Mutual exclusion: every asker has entered and left as often as it asked (or the excused fault
 * happened: after it, nothing is promised).
 */
export function everyAskerServed(
  askers: readonly NodeId[],
  nodes: readonly NodeId[],
  excuse: Excuse,
): LivenessGoal {
  return {
    name: `every request is served: ${askers.map(String).join(', ')} ${askers.length === 1 ? 'enters and leaves' : 'each enter and leave'}${excuse === 'nothing' ? '' : ` (unless ${excuse === 'crash' ? 'a node crashed' : 'a message was lost or a node crashed'})`}`,
    holds: (state) =>
      excused(state.net, nodes, excuse) ||
      askers.every(
        (id) => emitted(state, id, 'acquired') >= 1 && emitted(state, id, 'released') >= 1,
      ),
  }
}

/**
 * Election: every live node follows one leader in one term, `winner` when given; with `from`, only
 * once the virtual time has reached it (after the spec's last planned fault).
 */
export function oneAgreedLeader(
  ids: readonly NodeId[],
  options: { winner?: NodeId; from?: number } = {},
): LivenessGoal {
  const who = options.winner === undefined ? 'one leader' : `node ${String(options.winner)}`
  const when = options.from === undefined ? '' : ` from ${options.from} ms on`
  return {
    name: `the election ends: every live node follows ${who} in one term${when}`,
    holds: ({ net, events }) => {
      if (options.from !== undefined && net.now < options.from) return false
      const live = ids.filter((id) => !net.isCrashed(id))
      const verdict = checkElection(events)
      const agreed = agreedLeader(verdict, live)
      return (
        agreed !== undefined && (options.winner === undefined || agreed.leader === options.winner)
      )
    },
  }
}

/** Broadcast: every live member has delivered `count` messages (unless one was lost). */
export function everyBroadcastDelivered(
  members: readonly NodeId[],
  count: number,
  excuse: Excuse = 'loss-or-crash',
): LivenessGoal {
  return {
    name: `every broadcast is delivered: each live member delivers all ${count}${excuse === 'nothing' ? '' : ' (unless a message was lost or a member crashed)'}`,
    holds: (state) =>
      excused(state.net, members, excuse) ||
      members
        .filter((id) => !state.net.isCrashed(id))
        .every((id) => emitted(state, id, 'deliver') >= count),
  }
}

/** Clock synchronization: every node of `owed` adjusted its clock or reported the sync failed. */
export function everyClientSettled(owed: readonly NodeId[]): LivenessGoal {
  return {
    name: `every client settles: ${owed.map(String).join(', ')} ${owed.length === 1 ? 'adjusts or reports' : 'each adjust or report'} sync-failed`,
    holds: (state) =>
      owed.every((id) => emitted(state, id, 'adjusted') + emitted(state, id, 'sync-failed') >= 1),
  }
}
