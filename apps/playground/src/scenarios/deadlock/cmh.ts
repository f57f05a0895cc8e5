/**
 * Chandy-Misra-Haas edge chasing in the playground, the texts' probe walk-through on a cycle of
 * waits across every site: each process holds a resource of its own site and asks for the next
 * site's, one more waits into the cycle from outside, the probes go round, the youngest of the
 * cycle is aborted and the others finish.
 */
import { isRecord, type TraceEvent } from '@sd/transport'
import type { Scenario } from '../../scenario.js'
import { describeDeadlock } from './describe.js'
import { detectionOutcome, detectionSummary, judge } from './judge.js'
import { deadlockScenario, launchManager, RESOLVES, ringWorkload, WORK_MS } from './run.js'

export const deadlockCmh: Scenario = deadlockScenario({
  name: 'deadlock-cmh',
  title: 'Chandy-Misra-Haas: probes (i, j, k) chase the waits across sites, back at i: deadlock',
  description: `Sites 1..n (default 4), resource r<i> at site i. Process i runs at site i from t = i - 1 ms (so n is the youngest): it takes r<i>, works ${WORK_MS} ms and asks for r<i+1> (n asks for r1), so the waits 1 → 2 → ... → n → 1 cross every site, a cycle no site sees. Process n+1, at site 1 from t = n + 2 ms, asks for r2: it waits into the cycle from outside, deadlocked in the AND model without being on the cycle. A process that blocks sends probe (i, i, k) to the holder k it waits for; a blocked receiver forwards (i, k, m) to the holder it waits for, once per wait of the initiator; an active one drops it. A probe back at its initiator found a cycle: a verify message goes round it once more (same requests, same holds), then the youngest of the cycle, n, is aborted and the others finish. The diagram writes each probe (initiator, sender, receiver).`,
  checks:
    'every report names a cycle that existed, no cycle is left, every victim was named by a report, every process finished or was aborted.',
  minN: 2,
  maxN: 16,
  run({ n, seed, faults }) {
    const workload = ringWorkload(n, { startAt: (i) => i - 1 })
    const outsider = n + 1
    workload.processes.push({ id: outsider, home: 1, startAt: n + 2, resources: ['r2'] })
    const { net, events } = launchManager({ seed, faults }, workload, { kind: 'chandy-misra-haas' })
    net.run()
    const judged = judge(events)
    const { result, violations, unfinished } = detectionOutcome(judged, workload.processes)
    return {
      net,
      annotate: describeDeadlock(net.trace),
      story: probeHome(net.trace),
      violations,
      liveness: { property: RESOLVES, unfinished },
      result: { ...result, outsider },
      summary: detectionSummary(judged),
    }
  },
})

/** A probe delivered back to its initiator: the moment the cycle is found, kept on the diagram. */
function probeHome(trace: readonly TraceEvent[]): (event: TraceEvent) => boolean {
  const home = new Set<number>()
  for (const e of trace) {
    if (e.type !== 'send') continue
    // A composed child's message is wrapped (`{ proto, msg }`): the probe is inside.
    let p = e.msg
    while (isRecord(p) && typeof p.proto === 'string' && typeof p.msg === 'object') p = p.msg
    if (isRecord(p) && p.type === 'probe' && p.initiator === p.receiver) home.add(e.id)
  }
  return (event) => event.type === 'deliver' && home.has(event.id)
}
