/**
 * Check specs for the mutexes of @sd/mutex with a coordinator restart: the quorum of coordinators
 * (durable grants) and the centralized lock whose coordinator changes.
 */
import {
  type CentralizedEvent,
  type CentralizedMessage,
  type CentralizedRequest,
  centralized,
  checkMutualExclusion,
  type MutexRequest,
  type QuorumMutexOptions,
  quorumMutex,
} from '@sd/mutex'
import type { NodeId, ProtocolFactory, SimNetwork } from '@sd/transport'
import type { ExploreScenario } from '@sd/transport/explore'
import { everyAskerServed } from './goals.js'
import type { CheckSpec } from './spec.js'

interface RestartPlan {
  ids: readonly NodeId[]
  /** Who asks when, once each; a section is held this long. */
  asks: ReadonlyArray<{ node: NodeId; at: number }>
  holdMs: number
  /** Crashes and restarts at set times (the coordinator's). */
  restarts: ReadonlyArray<{ t: number; node: NodeId; type: 'crash' | 'restart' }>
  /** Anything else planned (a coordinator change). */
  plan?: (net: SimNetwork) => void
}

/**
 * Every asker asks once and releases holdMs after it enters; judged by
 * checkMutualExclusion over every node's events at once, in the order the run took (a restarted
 * node starts a new vector clock, so happens-before from clocks carried on the messages, as
 * ./mutex.ts judges, would see overlaps that are not there). The reduction fixes the order of
 * independent events arbitrarily: an overlap it shows is real (the events were concurrent).
 */
export function restartScenario<Msg, Ev>(
  factory: ProtocolFactory<Msg, MutexRequest, Ev>,
  { ids, asks, holdMs, restarts, plan }: RestartPlan,
): ExploreScenario<Ev> {
  return {
    setup(net) {
      net.launch(ids, factory, {
        onEmit: (node, event, t) => {
          if ((event as { type?: string }).type === 'acquired')
            net.request<MutexRequest>(node, { type: 'release' }, t + holdMs)
        },
      })
      for (const { node, at } of asks) net.request<MutexRequest>(node, { type: 'acquire' }, at)
      for (const r of restarts)
        net.at(r.t, () => (r.type === 'crash' ? net.crash(r.node) : net.restart(r.node)))
      plan?.(net)
    },
    invariant({ net, events }) {
      const crashes = restarts.filter((r) => r.type === 'crash' && r.t <= net.now)
      return checkMutualExclusion(events, crashes).violations[0]
    },
  }
}

export const QUORUM: QuorumMutexOptions = {
  coordinators: [1, 2, 3],
  m: 2,
  durableGrants: true,
  timeoutMs: 20,
  backoffMs: 5,
}
const HEAL_AT = 1
const CRASH_AT = 2
const RESTART_AT = 3
const LATE_ASK_AT = 4
const QUORUM_HOLD_MS = 10
const QUORUM_UNTIL = 14

/** The quorum spec's scenario around any quorum-shaped factory (the tests pass one that forgets). */
export function quorumScenario(factory: ReturnType<typeof quorumMutex>) {
  return restartScenario(factory, {
    ids: [1, 2, 3],
    asks: [
      { node: 1, at: 0 },
      { node: 3, at: LATE_ASK_AT },
    ],
    holdMs: QUORUM_HOLD_MS,
    // Node 1's request to coordinator 3 is lost: its two grants are 1's and 2's, so coordinator
    // 2 alone stands between it and node 3 (as the playground's mutex-quorum scenario does).
    plan(net) {
      net.partition([1, 2], [3])
      net.at(HEAL_AT, () => net.heal())
    },
    restarts: [
      { t: CRASH_AT, node: 2, type: 'crash' },
      { t: RESTART_AT, node: 2, type: 'restart' },
    ],
  })
}

export const quorumCheck: CheckSpec = {
  scenario: 'mutex-quorum',
  what: `coordinators 1, 2 and 3, a client needs m = 2 grants (timeout ${QUORUM.timeoutMs} ms, backoff ${QUORUM.backoffMs} ms); grants are durable (durableGrants); node 3 is cut off from 1 and 2 until ${HEAL_AT} ms, so node 1's request to it is lost; node 1 asks at the start, node 3 at ${LATE_ASK_AT} ms, each once, and a section lasts ${QUORUM_HOLD_MS} ms; coordinator 2, in every two quorums' intersection, crashes at ${CRASH_AT} ms and restarts at ${RESTART_AT} ms (while node 1 may hold its grant); time is bounded at ${QUORUM_UNTIL} ms. checkMutualExclusion over every node's events in the order of the run: no entry while another section is held, fencing tokens rising in entry order. Safety only`,
  defaultN: 3,
  minN: 3,
  maxN: 3,
  // Exhausted (about 950 states): node 1 leaves at 10 ms and node 3 may enter after it within
  // the bound (at 30 ms, about 146,000 states, a minute).
  defaults: { depth: 200, until: QUORUM_UNTIL },
  liveness: () => [everyAskerServed([1], [1], 'nothing')],
  build() {
    return quorumScenario(quorumMutex(QUORUM))
  },
}

export const FAILOVER = { leaseMs: 20, maxDelayMs: 5 }
const FAILOVER_CRASH_AT = 3
const FAILOVER_AT = 5
const FAILOVER_HOLD_MS = 10
const FAILOVER_UNTIL = 20

export const failoverCheck: CheckSpec = {
  scenario: 'mutex-centralized-failover',
  what: `the centralized lock on nodes 1, 2 and 3, node 1 coordinating (term 0), grants leased for ${FAILOVER.leaseMs} ms (max message delay ${FAILOVER.maxDelayMs} ms); node 3 asks at the start and holds the lock ${FAILOVER_HOLD_MS} ms, node 2 asks at 1 ms and waits; coordinator 1 crashes at ${FAILOVER_CRASH_AT} ms and at ${FAILOVER_AT} ms nodes 2 and 3 are told node 2 coordinates in term 1, while node 3 still holds the lock (the new coordinator must learn of it, or wait out every lease the old one gave, before it grants); time is bounded at ${FAILOVER_UNTIL} ms. checkMutualExclusion over every node's events in the order of the run (a lease ends at its expiry): no entry while another valid section is held, fencing tokens rising in entry order. Safety only: node 2 may be served only once the new coordinator's recovery ends (${FAILOVER.leaseMs + FAILOVER.maxDelayMs} ms after the change, lacking node 1's SYNC), past what can be exhausted here`,
  defaultN: 3,
  minN: 3,
  maxN: 3,
  // Exhausted (about 2,100 states); bounded at 30 ms, about 6,900 states (at 45 ms, 46,000).
  defaults: { depth: 200, until: FAILOVER_UNTIL },
  build() {
    return failoverScenario(centralized(FAILOVER))
  },
}

/** The failover spec's scenario around any centralized-shaped factory (the tests pass broken ones). */
export function failoverScenario(
  factory: ProtocolFactory<CentralizedMessage, CentralizedRequest, CentralizedEvent>,
) {
  return restartScenario(factory, {
    ids: [1, 2, 3],
    asks: [
      { node: 3, at: 0 },
      { node: 2, at: 1 },
    ],
    holdMs: FAILOVER_HOLD_MS,
    restarts: [{ t: FAILOVER_CRASH_AT, node: 1, type: 'crash' }],
    plan(net) {
      for (const id of [2, 3])
        net.request<CentralizedRequest>(id, { type: 'coordinator', id: 2, term: 1 }, FAILOVER_AT)
    },
  })
}
