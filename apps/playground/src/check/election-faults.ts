/** Check spec for the bully election (@sd/election) with a crash and a return of the best node. */
import { bully, type ElectionRequest } from '@sd/election'
import type { NodeId } from '@sd/transport'
import { electionScenario } from './election-run.js'
import { oneAgreedLeader } from './goals.js'
import type { CheckSpec } from './spec.js'

/** Heartbeats this slow never fire within the bound: elections are started by plan, not by silence. */
const QUIET = { intervalMs: 10_000, timeoutMs: 50_000 }
const idsOf = (n: number): NodeId[] => Array.from({ length: n }, (_, i): NodeId => i + 1)

export const BULLY = { okTimeoutMs: 5, coordinatorTimeoutMs: 15 }
const BULLY_CRASH_AT = 30
const BULLY_NOTICE_AT = 35
const BULLY_RETURN_AT = 60
const BULLY_UNTIL = 100

export const bullyCheck: CheckSpec = {
  scenario: 'election-bully',
  what: (n) =>
    `nodes 1..${n} start and elect (OK timeout ${BULLY.okTimeoutMs} ms, COORDINATOR timeout ${BULLY.coordinatorTimeoutMs} ms; heartbeats ${QUIET.intervalMs} ms, so silence starts no election within the bound); node ${n} crashes at ${BULLY_CRASH_AT} ms, node 1 starts an election at ${BULLY_NOTICE_AT} ms, node ${n} restarts at ${BULLY_RETURN_AT} ms and bullies its way back; time is bounded at ${BULLY_UNTIL} ms. checkElection over every node's events: one leader per term, terms never go back at a node; at the end every live node follows node ${n}, the best live one`,
  defaultN: 3,
  minN: 2,
  maxN: 4,
  // Bounded at n = 3: 300 schedules (about 16,000 states; a million states do not exhaust it). --n 2
  // is exhausted (about 1,200 states).
  defaults: { depth: 200, until: BULLY_UNTIL, maxSchedules: 300 },
  liveness: (n) => [oneAgreedLeader(idsOf(n), { winner: n, from: BULLY_RETURN_AT })],
  build(n) {
    return bullyScenario(n, bully({ heartbeat: QUIET, ...BULLY }))
  },
}

/** The bully spec's scenario around any bully-shaped factory (the tests pass broken ones). */
export function bullyScenario(n: number, factory: Parameters<typeof electionScenario>[0]) {
  const ids = idsOf(n)
  const best = ids[n - 1]!
  return electionScenario(factory, {
    ids,
    until: BULLY_UNTIL,
    plan(net) {
      net.at(BULLY_CRASH_AT, () => net.crash(best))
      net.request<ElectionRequest>(1, { type: 'start' }, BULLY_NOTICE_AT)
      net.at(BULLY_RETURN_AT, () => net.restart(best))
    },
    winner: () => best,
  })
}
