/** Check specs for the ring election (a member down) and YoYo (a small graph) of @sd/election. */
import { type ElectionRequest, graphOf, ringElection, yoyo } from '@sd/election'
import type { NodeId } from '@sd/transport'
import { electionScenario } from './election-run.js'
import { oneAgreedLeader } from './goals.js'
import type { CheckSpec } from './spec.js'

/** Heartbeats this slow never fire within the bound: elections are started by plan. */
const QUIET = { intervalMs: 10_000, timeoutMs: 50_000 }
const idsOf = (n: number): NodeId[] => Array.from({ length: n }, (_, i): NodeId => i + 1)

const RING_ACK_MS = 5
const RING_UNTIL = 100

export const ringCheck: CheckSpec = {
  scenario: 'election-ring',
  what: (n) =>
    `nodes 1..${n} on a ring in id order; node ${n} is down from the start; nodes 1 and 2 start an election at once (every pass acknowledged within ${RING_ACK_MS} ms, else the successor is skipped; heartbeats ${QUIET.intervalMs} ms, so silence starts none within the bound); time is bounded at ${RING_UNTIL} ms. checkElection over every node's events: one leader per term, terms never go back; at the end every live node follows node ${n - 1}, the best live one`,
  defaultN: 4,
  minN: 3,
  maxN: 5,
  // Bounded at n = 4: 150 schedules (about 600 states; 500 schedules reach about 7,800).
  defaults: { depth: 200, until: RING_UNTIL, maxSchedules: 150 },
  liveness: (n) => [oneAgreedLeader(idsOf(n), { winner: n - 1 })],
  build(n) {
    const ids = idsOf(n)
    const down = ids[n - 1]!
    return electionScenario(ringElection({ heartbeat: QUIET, ackTimeoutMs: RING_ACK_MS }), {
      ids,
      until: RING_UNTIL,
      plan(net) {
        net.crash(down)
        for (const id of [1, 2]) net.request<ElectionRequest>(id, { type: 'start' })
      },
      winner: () => ids[n - 2],
    })
  },
}

/** A path 3 - 1 - 4 - 2, the chord 3 - 4 and 5 hung on 4: ids neither rise nor fall along it. */
const YOYO_EDGES: ReadonlyArray<readonly [NodeId, NodeId]> = [
  [3, 1],
  [1, 4],
  [4, 2],
  [3, 4],
  [4, 5],
]

export const yoyoCheck: CheckSpec = {
  scenario: 'election-yoyo',
  what: (n) =>
    `nodes 1..${n} on the graph ${YOYO_EDGES.filter(([a, b]) => Number(a) <= n && Number(b) <= n)
      .map(([a, b]) => `${String(a)}-${String(b)}`)
      .join(
        ', ',
      )}; YoYo (no timers, no faults: a one-shot election) in every order of its messages. checkElection over every node's events: one leader per term; at the end every node follows node 1, the minimum`,
  defaultN: 5,
  minN: 2,
  maxN: 5,
  // Exhausted at n = 5 (about 1,800 states; 512 at n = 4).
  defaults: { depth: 200 },
  liveness: (n) => [oneAgreedLeader(idsOf(n), { winner: 1 })],
  build(n) {
    const ids = idsOf(n)
    const graph = graphOf(
      ids,
      YOYO_EDGES.filter(([a, b]) => Number(a) <= n && Number(b) <= n),
    )
    return electionScenario(yoyo({ neighbors: (id) => graph.neighbors(id) }), {
      ids,
      winner: () => 1,
    })
  },
}
