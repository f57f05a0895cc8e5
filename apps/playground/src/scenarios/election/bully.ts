/**
 * The bully algorithm in the playground. The default is the texts' worked example: processes
 * 0..7 elect 7; 7 crashes; 4 notices first and holds an election; 5 and 6 answer OK; 6 wins;
 * then 7 recovers and bullies its way back, with a higher term.
 */
import { bully, type ElectionRequest } from '@sd/election'
import type { NodeId } from '@sd/transport'
import type { Scenario } from '../../scenario.js'
import { runElectionPlan } from './run.js'

const CRASH_AT = 60
const NOTICE_AT = 65
const RECOVER_AT = 130

export const electionBully: Scenario = {
  name: 'election-bully',
  title: 'bully (Garcia-Molina): the best live process wins; a recovered better one takes over',
  description: `Processes 0..n-1 (default 8, the texts' example) start and elect the highest id. At t=${CRASH_AT} ms the leader crashes (or the nodes named by --crash); at t=${NOTICE_AT} ms node 4 (or the middle node) notices and sends ELECTION to every better process; the live ones answer OK and hold their own elections; the best live one hears no OK in time and announces COORDINATOR to all. At t=${RECOVER_AT} ms the crashed nodes recover; a better one bullies its way back with a higher term. Heartbeats every 10 ms, suspicion after 50 ms of silence. Checks from the trace: never two leaders in one term, terms never go back, and every live node follows the same leader at the end.`,
  crashes: `the named nodes crash at t=${CRASH_AT} ms and recover at t=${RECOVER_AT} ms (default: the highest id)`,
  pause: {
    accepts:
      'the paused node sends no heartbeat and answers nothing: paused long enough (over 50 ms), a leader is suspected and replaced, a follower misses elections; at its resume it handles what waited and rejoins with the newest term. The run lasts until 200 ms after the last resume, and every live node must then follow one leader',
  },
  deterministic:
    "every message takes 1 ms and the plan (start, crash, notice, recovery) is fixed: the texts' worked example, the same for every seed",
  firstId: 0,
  defaultN: 8,
  minN: 2,
  maxN: 16,
  run({ n, seed, crash, faults }) {
    const ids: NodeId[] = Array.from({ length: n }, (_, i) => i)
    const down = crash.length > 0 ? crash : [n - 1]
    const noticing = Math.min(4, Math.floor(n / 2))
    return runElectionPlan(
      bully({
        heartbeat: { intervalMs: 10, timeoutMs: 50 },
        okTimeoutMs: 5,
        coordinatorTimeoutMs: 15,
      }),
      {
        ids,
        until: 200,
        faults,
        plan: (net) => {
          for (const id of down) net.at(CRASH_AT, () => net.crash(id))
          if (!down.includes(noticing)) {
            net.request<ElectionRequest>(noticing, { type: 'start' }, NOTICE_AT)
          }
          for (const id of down) net.at(RECOVER_AT, () => net.restart(id))
        },
      },
      seed,
    )
  },
}
