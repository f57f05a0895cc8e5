import { isFiniteNumber, isNodeId, isNonNegInt, oneOf, shape } from '@sd/transport'
import type { CentralizedRequest } from './requests.js'

// The election contract's event shapes, checked: the wiring takes any node's events, typed or not.
const isLeader = shape({ type: oneOf('leader'), leader: isNodeId, term: isNonNegInt })
const isLease = shape({ type: oneOf('lease'), term: isNonNegInt, until: isFiniteNumber })
const isLost = shape({ type: oneOf('stepped-down', 'leader-lost'), term: isNonNegInt })

/**
 * A `compose` wiring map from an election composed on the same node to the centralized lock
 * (`centralized({ leaderLease: true, ... })`), by the election contract's event shapes, so this
 * package needs no election:
 * - `leader { leader, term }` → `coordinator { id, term }`: the leader coordinates its term;
 * - `lease { term, until }` → `coordinator-lease { term, until }`: until when (the leader's
 *   `ctx.monotonic()`) its leader lease lets it grant;
 * - `stepped-down { term }` and `leader-lost { term }` → `coordinator-lost { term }`: it stops
 *   coordinating at once (a node that does not coordinate `term` ignores it).
 * Any other event, or one of these whose fields do not fit, maps to nothing.
 *
 * ```ts
 * compose({ election: majorityElection()(self), lock: centralized({ leaseMs: 1000, leaderLease: true })(self) },
 *   { wiring: [{ from: 'election', to: 'lock', map: electionToLock }] })
 * ```
 */
export function electionToLock(event: unknown): CentralizedRequest | undefined {
  if (isLeader(event)) return { type: 'coordinator', id: event.leader, term: event.term }
  if (isLease(event)) return { type: 'coordinator-lease', term: event.term, until: event.until }
  if (isLost(event)) return { type: 'coordinator-lost', term: event.term }
  return undefined
}
