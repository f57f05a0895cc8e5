import type { CentralizedRequest } from './index.js'

type Loose = Partial<Record<string, unknown>> | null

/**
 * A `compose` wiring map from an election composed on the same node to the centralized lock
 * (`centralized({ leaderLease: true, ... })`), by the election contract's event shapes, so this
 * package needs no election:
 * - `leader { leader, term }` → `coordinator { id, term }`: the leader coordinates its term;
 * - `lease { term, until }` → `coordinator-lease { term, until }`: until when (the leader's
 *   `ctx.monotonic()`) its leader lease lets it grant;
 * - `stepped-down { term }` and `leader-lost { term }` → `coordinator-lost { term }`: it stops
 *   coordinating at once (a node that does not coordinate `term` ignores it).
 * Any other event maps to nothing.
 *
 * ```ts
 * compose({ election: majorityElection()(self), lock: centralized({ leaseMs: 1000, leaderLease: true })(self) },
 *   { wiring: [{ from: 'election', to: 'lock', map: electionToLock }] })
 * ```
 */
export function electionToLock(event: unknown): CentralizedRequest | undefined {
  const e = event as Loose
  switch (e?.type) {
    case 'leader':
      return { type: 'coordinator', id: e.leader as never, term: e.term as number }
    case 'lease':
      return { type: 'coordinator-lease', term: e.term as number, until: e.until as number }
    case 'stepped-down':
    case 'leader-lost':
      return { type: 'coordinator-lost', term: e.term as number }
    default:
      return undefined
  }
}
