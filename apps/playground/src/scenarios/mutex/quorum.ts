/**
 * The quorum of coordinators with forgetful coordinators, in the playground: the texts' point that
 * a coordinator restart in the intersection of two quorums breaks mutual exclusion, on a fixed
 * plan, next to the probability of that happening (P_v).
 */
import { quorumMutex, violationProbability } from '@sd/mutex'
import type { SimNetwork } from '@sd/transport'
import type { Scenario } from '../../scenario.js'
import { runMutexPlan } from './run.js'

// Nodes 1-5 coordinate (m = 3 grants needed); 6 and 7 are clients. Every message takes 1 ms:
//   t = 0   6 is cut off from 4 and 5 (and 7 from everyone); 6 asks and enters at t = 2 with 1, 2, 3
//   t = 5   the partition heals
//   t = 10  coordinator 3 crashes; t = 12 it restarts, having forgotten its grant to 6
//   t = 20  7 asks: 1 and 2 deny, 3, 4 and 5 grant: 7 enters at t = 22 while 6 is inside until t = 52
const coordinators = [1, 2, 3, 4, 5]

function restartInTheIntersection(net: SimNetwork): void {
  net.partition([6, 1, 2, 3], [4, 5])
  net.at(5, () => net.heal())
  net.at(10, () => net.crash(3))
  net.at(12, () => net.restart(3))
}

export const mutexQuorum: Scenario = {
  name: 'mutex-quorum',
  title: 'quorum of 5 coordinators (m = 3) that forget their grants on restart: a real violation',
  description:
    "Nodes 1-5 are coordinators, a client needs m = 3 of their grants; 6 and 7 are clients. Coordinators keep their grants in memory, as in the texts, so a restart forgets them: 6 enters with the grants of 1, 2 and 3; 3 crashes and restarts; 7 then collects 3, 4 and 5 and enters while 6 is still inside. The overlap is the expected finding: printed under EXPECTED VIOLATION (expectedViolations and result.finding in --json), exit 0; the run reports a violation (exit 1) only if that overlap does NOT happen. result.violationProbability gives the texts' P_v for p = 0.0001, n = 32, m = 24.",
  defaultN: 7,
  minN: 7,
  maxN: 7,
  run({ seed }) {
    const run = runMutexPlan(
      quorumMutex({ coordinators, m: 3 }),
      {
        ids: [...coordinators, 6, 7],
        asks: [
          { node: 6, at: 0, hold: 50 },
          { node: 7, at: 20, hold: 10 },
        ],
        faults: restartInTheIntersection,
      },
      seed,
    )
    const overlaps = run.violations
    run.result.finding =
      overlaps.length > 0
        ? `expected: a restart in the intersection broke mutual exclusion (${overlaps.join('; ')})`
        : 'none'
    run.result.violationProbability = {
      p: 0.0001,
      n: 32,
      m: 24,
      pv: violationProbability(32, 24, 0.0001),
    }
    run.expectedViolations = overlaps
    run.violations =
      overlaps.length > 0
        ? []
        : ['the restart plan should have let two clients in at once, and it did not']
    run.summary = [
      ...(run.summary ?? []),
      `finding: ${String(run.result.finding)}`,
      `P_v for p = 0.0001, n = 32, m = 24: ${violationProbability(32, 24, 0.0001).toExponential(2)}`,
    ]
    return run
  },
}
