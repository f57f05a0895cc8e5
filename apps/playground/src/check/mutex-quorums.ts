/** Check specs for Lamport's mutex and Maekawa (@sd/mutex): reliable links, every node asks once. */
import { lamportMutex, maekawa } from '@sd/mutex'
import { everyAskerServed } from './goals.js'
import { idsOf, mutexScenario } from './mutex.js'
import type { CheckSpec } from './spec.js'

const SAFETY =
  'of any two critical sections one ends before the other begins (happens-before, from vector clocks carried on the messages) and the later has the larger fencing token'

export const lamportMutexCheck: CheckSpec = {
  scenario: 'mutex-lamport',
  what: `every node asks once at the start and releases 1 ms after it enters; ${SAFETY}; at the end every node has entered and left once (unless a message was lost or a node crashed: Lamport's algorithm needs reliable FIFO links and live peers, so then only safety is claimed)`,
  defaultN: 3,
  minN: 2,
  maxN: 3,
  // Bounded at n = 3: 2,000 schedules (a million states, statefully, do not exhaust it; --n 2 does).
  defaults: { depth: 100, maxSchedules: 2_000 },
  liveness: (n) => [everyAskerServed(idsOf(n), idsOf(n), 'loss-or-crash')],
  build(n) {
    return mutexScenario(lamportMutex(), n)
  },
}

export const maekawaCheck: CheckSpec = {
  scenario: 'mutex-maekawa',
  what: (n) =>
    `${n} nodes, each quorum its row and column of a grid of ceil(sqrt(n)) columns; every node asks once at the start and releases 1 ms after it enters (INQUIRE / RELINQUISH / FAILED in any order); ${SAFETY}; at the end every node has entered and left once, so no deadlock (unless a message was lost or a node crashed: Maekawa waits for every member of its quorum, so then only safety is claimed)`,
  defaultN: 3,
  minN: 2,
  maxN: 4,
  // Exhausted at n = 3 by the stateful search (about 3,000 states); stateless, about 33,000 schedules.
  defaults: { depth: 120, maxSchedules: 2_000 },
  liveness: (n) => [everyAskerServed(idsOf(n), idsOf(n), 'loss-or-crash')],
  build(n) {
    return mutexScenario(maekawa(), n)
  },
}
