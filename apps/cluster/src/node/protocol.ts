/**
 * The one protocol every node of the cluster runs: three children composed on one transport.
 *
 * - `election`: majority-quorum election (at most one leader per term, no leader in a minority);
 * - `lock`: the centralized lock, whose coordinator is the elected leader, wired by `electionToLock`:
 *   `leader` moves the coordinator in the same step the node learns of a new leader, `lease` tells
 *   the leader until when (its monotonic clock) it may grant (`leaderLease: true`: no grant or
 *   renewal without a valid leader lease, so a paused or cut-off leader grants nothing), and
 *   `stepped-down` / `leader-lost` end its coordinator role at once. The fencing tokens it grants
 *   are term x 2^32 + a counter: the term leads;
 * - `sync`: Berkeley time synchronization, whose master is the leader (the same `leader` event is
 *   wired to `{ type: 'set-master', master }`).
 *
 * Pure, like its children: the same factory runs in the simulator (the tests) and over UDP.
 */
import { majorityElection } from '@sd/election'
import { centralized, electionToLock } from '@sd/mutex'
import { berkeley, DisciplinedClock } from '@sd/timesync'
import { compose, type NodeId } from '@sd/transport'

export interface NodeTimings {
  /** Leader heartbeat interval and suspicion timeout (ms). */
  heartbeatMs: number
  timeoutMs: number
  /** Lock lease (ms): a holder that stops renewing (killed, paused, cut off) loses it. */
  leaseMs: number
  /** Berkeley round period and poll timeout (ms). */
  syncPeriodMs: number
  syncPollMs: number
}

export const DEFAULT_TIMINGS: NodeTimings = {
  heartbeatMs: 100,
  timeoutMs: 500,
  leaseMs: 1000,
  syncPeriodMs: 1000,
  syncPollMs: 200,
}

/** How long a deposed coordinator's grant can outlive it: the new one waits this before granting. */
export const leaseBoundMs = (t: NodeTimings) => t.leaseMs + t.leaseMs / 2

/** The composition for one node; `clock` is the node's software clock, which `sync` disciplines. */
export function clusterNode(self: NodeId, timings: NodeTimings, clock: DisciplinedClock) {
  return compose(
    {
      lock: centralized({ leaseMs: timings.leaseMs, leaderLease: true })(self),
      sync: berkeley({ periodMs: timings.syncPeriodMs, pollTimeoutMs: timings.syncPollMs })(
        self,
        clock,
      ),
      // Last, so that whatever it emits finds the other children started.
      election: majorityElection({
        heartbeat: { intervalMs: timings.heartbeatMs, timeoutMs: timings.timeoutMs },
      })(self),
    },
    {
      wiring: [
        { from: 'election', to: 'lock', map: electionToLock },
        {
          from: 'election',
          to: 'sync',
          map: (e) => (e.type === 'leader' ? { type: 'set-master', master: e.leader } : undefined),
        },
      ],
    },
  )
}

export type ClusterProtocol = ReturnType<typeof clusterNode>

/** A software clock that slews fast enough to be seen converging in a run of seconds. */
export function nodeClock(): DisciplinedClock {
  return new DisciplinedClock({ maxSlewRate: 0.05 })
}

/** Fencing tokens are term x 2^32 + a counter (see @sd/mutex's centralized lock). */
export const TOKENS_PER_TERM = 2 ** 32
export const termOfToken = (token: number) => Math.floor(token / TOKENS_PER_TERM)
/** `T3#12`: the 12th grant of term 3. */
export const formatToken = (token: number) =>
  `T${termOfToken(token)}#${token - termOfToken(token) * TOKENS_PER_TERM}`
