/**
 * Centralized deadlock detection in the playground: a coordinator collects every site's local
 * wait-for graph periodically and merges them. First the phantom of the texts: two local graphs
 * read at different moments make a cycle that never existed; the confirmation round sees that one
 * of its waits is gone and aborts nobody. Then a real deadlock across every site, found, confirmed
 * and broken.
 */
import type { ProcessSpec } from '@sd/deadlock'
import type { SimNetwork } from '@sd/transport'
import type { Scenario } from '../../scenario.js'
import { describeDeadlock } from './describe.js'
import { detectionOutcome, detectionSummary, judge } from './judge.js'
import {
  arrow,
  deadlockScenario,
  launchManager,
  ms,
  RESOLVES,
  ringWorkload,
  sortIds,
  WORK_MS,
  type Workload,
} from './run.js'

const COORDINATOR = 1
/** Site 2's graph is read late: the coordinator's messages to it take this long. */
const SLOW_MS = 20
/** The coordinator starts a round this long after its last one ended. */
const PERIOD_MS = 25
/** The real deadlock's processes start from here, the phantom's pair long done. */
const RING_AT = 200
/** Runs in steps of this much virtual time until every process finished or was aborted. */
const STEP_MS = 50
const LIMIT_MS = 5000

/**
 * The phantom: A (site 2) holds y and asks for x, which B (site 3) holds: A waits for B at site 3.
 * B then releases x (A gets it) and asks for y: B waits for A at site 2. Site 3 is read while A
 * still waits, site 2 only after B waits: the merge has A → B → A, which never was at once.
 */
const PHANTOM: ProcessSpec[] = [
  { id: 'A', home: 2, steps: [{ acquire: 'y' }, { work: 2 }, { acquire: 'x' }, { work: 100 }] },
  {
    id: 'B',
    home: 3,
    startAt: 0.5,
    steps: [{ acquire: 'x' }, { work: 40 }, { release: 'x' }, { acquire: 'y' }],
  },
]

export const deadlockCentralized: Scenario = deadlockScenario({
  name: 'deadlock-centralized',
  title:
    'centralized detection: a coordinator merges local wait-for graphs; phantoms confirmed away',
  description: `Sites 1..n (default 4); site ${COORDINATOR} coordinates: ${PERIOD_MS} ms after its last round it sends collect to every site, each answers with the waits of its lock tables, it merges them and looks for a cycle. Messages from site 1 to site 2 take ${SLOW_MS} ms, so site 2 is always read late. The local graphs are read at different moments, so the merge can show a cycle that never existed at once: a phantom deadlock, whose victim would die for nothing. First the phantom: A (site 2) holds y and waits for x, held by B (site 3); B releases x, which A gets, and asks for y: B waits for A. Site 3 was read while A still waited, site 2 after B began to wait: the merge has A → B → A. Before declaring a deadlock the coordinator runs a confirmation round: it asks the sites whether each wait of the cycle still exists, the same instance (same request, same holder). If all do, they all existed when the last graph was read, a real deadlock, which lasts; here A's wait is gone, so the cycle is reported as a phantom and nobody is aborted. Then, from t = ${RING_AT} ms, the cycle of deadlock-cmh: process i at site i takes r<i>, works ${WORK_MS} ms and asks for r<i+1>; a round finds it, confirms it, and aborts the youngest, n; the others finish. result.withoutConfirmation is the same run without the confirmation round (not drawn): the phantom is declared and B aborted.`,
  checks:
    'every deadlock reported existed, no cycle is left, every victim was named by a report, every process finished or was aborted.',
  minN: 3,
  maxN: 12,
  run({ n, seed, faults }) {
    const ring = ringWorkload(n, { startAt: (i) => RING_AT + i - 1 })
    const workload: Workload = {
      sites: ring.sites,
      resources: { ...ring.resources, x: 3, y: 2 },
      processes: [...PHANTOM, ...ring.processes],
    }
    const run = (confirm: boolean) => {
      const { net, events } = launchManager({ seed, faults }, workload, {
        kind: 'centralized',
        coordinator: COORDINATOR,
        periodMs: PERIOD_MS,
        confirm,
      })
      net.setLink(COORDINATOR, 2, { latency: SLOW_MS }, { oneWay: true })
      runUntilSettled(net, () => {
        const settled = new Set<unknown>()
        for (const { event } of events)
          if (event.type === 'finished' || event.type === 'aborted') settled.add(event.process)
        return workload.processes.every((p) => settled.has(p.id))
      })
      return { net, judged: judge(events) }
    }
    const { net, judged } = run(true)
    const { result, violations, unfinished } = detectionOutcome(judged, workload.processes)
    const without = run(false).judged
    return {
      net,
      annotate: describeDeadlock(net.trace),
      violations,
      liveness: { property: RESOLVES, unfinished },
      result: {
        ...result,
        coordinator: COORDINATOR,
        phantomsDismissed: judged.dismissed.map((d) => ({ t: ms(d.t), cycle: d.cycle })),
        withoutConfirmation: {
          reports: without.reports.map((r) => ({ t: ms(r.t), cycle: r.cycle, victim: r.victim })),
          phantoms: without.verdict.phantoms.map((p) => ({ t: ms(p.t), cycle: p.cycle })),
          aborted: sortIds(without.verdict.aborted),
        },
      },
      summary: [
        `phantoms dismissed by the confirmation round: ${judged.dismissed.map((d) => `${arrow(d.cycle)} at t=${ms(d.t)} ms`).join('; ') || 'none'}`,
        ...detectionSummary(judged),
        `without the confirmation round: ${without.verdict.phantoms.length} phantom deadlock(s) declared, aborted: ${sortIds(without.verdict.aborted).join(', ') || 'none'}`,
      ],
    }
  },
})

/** Periodic detection never lets the network go quiet: run until `settled`, a step at a time. */
function runUntilSettled(net: SimNetwork, settled: () => boolean): void {
  for (let t = STEP_MS; t <= LIMIT_MS; t += STEP_MS) {
    net.run({ until: t })
    if (settled()) return
  }
}
