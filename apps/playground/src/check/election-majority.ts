/**
 * Check spec for the majority election (@sd/election) with a partition and a crash: checkElection
 * given the faults, so never two leaders at once and no leader on a minority side.
 */
import { majorityElection } from '@sd/election'
import type { NodeId } from '@sd/transport'
import { electionScenario } from './election-run.js'
import { oneAgreedLeader } from './goals.js'
import type { CheckSpec } from './spec.js'

export const MAJORITY_HEARTBEAT = { intervalMs: 10, timeoutMs: 30 }
const CUT_AT = 60
const CRASH_AT = 90
const HEAL_AT = 120
const UNTIL_MS = 200

export const majorityCheck: CheckSpec = {
  scenario: 'election-majority',
  what: `nodes 1, 2 and 3 elect by majority vote (heartbeat ${MAJORITY_HEARTBEAT.intervalMs} ms, timeout ${MAJORITY_HEARTBEAT.timeoutMs} ms); node 3 (the best, first to stand) is cut off alone at ${CUT_AT} ms, node 1 crashes at ${CRASH_AT} ms (so neither side has a majority), the partition heals at ${HEAL_AT} ms (2 and 3 are a majority again); time is bounded at ${UNTIL_MS} ms. checkElection given the faults: one leader per term, terms never go back, never two leaders at once, and no node leads longer than the timeout (${MAJORITY_HEARTBEAT.timeoutMs} ms) without a majority on its side. Safety only: the explorer may hold any message while timers fire, so no election is owed within the bound`,
  defaultN: 3,
  minN: 3,
  maxN: 3,
  // Bounded: 100 schedules (about 4,900 states; heartbeats every 10 ms make the space far larger).
  defaults: { depth: 300, until: UNTIL_MS, maxSchedules: 100 },
  liveness: () => [oneAgreedLeader([1, 2, 3], { from: HEAL_AT })],
  build() {
    return majorityScenario(majorityElection({ heartbeat: MAJORITY_HEARTBEAT }))
  },
}

/** The spec's scenario around any majority-shaped factory (the tests pass broken ones). */
export function majorityScenario(factory: Parameters<typeof electionScenario>[0]) {
  const ids: NodeId[] = [1, 2, 3]
  return electionScenario(factory, {
    ids,
    until: UNTIL_MS,
    minorityGraceMs: MAJORITY_HEARTBEAT.timeoutMs,
    faults: [
      { t: CUT_AT, type: 'partition', groups: [[3], [1, 2]] },
      { t: CRASH_AT, type: 'crash', node: 1 },
      { t: HEAL_AT, type: 'heal' },
    ],
  })
}
