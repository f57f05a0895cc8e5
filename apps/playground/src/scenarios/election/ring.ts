/**
 * The ring election (Tanenbaum) and Chang-Roberts in the playground. The ring's default is the
 * texts' example: 7 has crashed, 2 and 5 start at once, and both circulations end with 6.
 */
import { changRoberts, type ElectionRequest, ringElection } from '@sd/election'
import { createRandom, type NodeId } from '@sd/transport'
import type { Scenario } from '../../scenario.js'
import { runElectionPlan } from './run.js'

export const electionRing: Scenario = {
  name: 'election-ring',
  title: 'ring election (Tanenbaum): ELECTION collects live ids, COORDINATOR circulates once',
  description:
    "Processes 0..n-1 in a logical ring (default 8, the texts' example). The crashed nodes (default: the highest id) are down from the start; nodes 2 and 5 start an election at once (those of them that exist and are up; when fewer than two do, the lowest live ids make up two starters, so a small ring tells the same story). Each ELECTION collects the ids of the live processes it passes (every pass is acknowledged; a dead successor is skipped); back at its initiator it becomes COORDINATOR with the best id of the list and circulates once more. Both circulations end with the same leader and term. Checks from the trace: never two leaders in one term, and every live node follows the same leader at the end.",
  crashes: 'the named nodes are down from the start (default: the highest id)',
  pause: {
    accepts:
      'the paused node stops answering: a pass to it is not acknowledged in time, so its predecessor skips it as if it were down; the run lasts until 200 ms after the last resume, and every live node must then follow one leader',
  },
  firstId: 0,
  defaultN: 8,
  minN: 3,
  maxN: 32,
  run({ n, seed, crash, faults }) {
    const ids: NodeId[] = Array.from({ length: n }, (_, i) => i)
    const down = crash.length > 0 ? crash : [n - 1]
    const starters = startersOf(ids, down)
    return runElectionPlan(
      ringElection(),
      {
        ids,
        until: 400,
        faults,
        plan: (net) => {
          for (const id of down) net.crash(id)
          for (const id of starters) net.request<ElectionRequest>(id, { type: 'start' })
        },
      },
      seed,
    )
  },
}

export const electionChangRoberts: Scenario = {
  name: 'election-chang-roberts',
  title: 'Chang-Roberts: one id travels the ring, the participant flag swallows the smaller ones',
  description:
    'n processes with random distinct ids placed round a unidirectional ring, every one an initiator. Each forwards an ELECTION carrying a larger id, replaces a smaller one by its own if it is not yet a participant, and swallows it if it is; the one that gets its own id back has the largest and sends ELECTED round. The result counts ELECTION messages next to the theory: n(n + 1) / 2 at worst (ids decreasing along the ring), about n H_n on average. A failure-free algorithm: --crash is not accepted.',
  defaultN: 8,
  minN: 2,
  maxN: 256,
  randomIds: true,
  pause: {
    accepts:
      'a pause only slows the ring down (the algorithm needs no timeout): the paused node handles its held messages at its resume; the run lasts until 200 ms after the last resume',
  },
  run({ n, seed, faults }) {
    const random = createRandom(`chang-roberts/${seed}`).next
    const pool = Array.from({ length: 10 * n }, (_, i) => i + 1)
    const ring: NodeId[] = []
    for (let i = 0; i < n; i++) ring.push(pool.splice(Math.floor(random() * pool.length), 1)[0]!)
    const run = runElectionPlan(
      changRoberts({ startAll: true, ring }),
      { ids: ring, until: 10 * n + 50, faults },
      seed,
    )
    let harmonic = 0
    for (let k = 1; k <= n; k++) harmonic += 1 / k
    run.result.ring = ring
    run.result.theory = { worst: (n * (n + 1)) / 2, average: Math.round(n * harmonic * 10) / 10 }
    return run
  },
}

/**
 * Who starts: nodes 2 and 5, the texts' initiators, those of them that exist and are up; when
 * fewer than two are, the lowest live ids fill in, so a small ring (n = 3, where 2 is the default
 * crash) still has two elections racing, and never none.
 */
export function startersOf(ids: readonly NodeId[], down: readonly NodeId[]): NodeId[] {
  const live = ids.filter((id) => !down.includes(id))
  const starters: NodeId[] = [2, 5].filter((id) => live.includes(id))
  for (const id of live) {
    if (starters.length >= 2) break
    if (!starters.includes(id)) starters.push(id)
  }
  return starters
}
