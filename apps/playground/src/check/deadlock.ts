/** Check spec for the deadlock package: Chandy-Misra-Haas in the distributed resource manager. */
import { checkDeadlocks, resourceManager, type TimedDeadlockEvent } from '@sd/deadlock'
import { ringWorkload, WORK_MS } from '../scenarios/deadlock/run.js'
import type { CheckSpec } from './spec.js'

export const cmhCheck: CheckSpec = {
  scenario: 'deadlock-cmh',
  what: (n) =>
    `sites 1..${n}, resource r<i> at site i; process i runs at site i from t = (i - 1) x ${WORK_MS} ms: it takes r<i>, works ${WORK_MS} ms, asks for r<i+1> (process ${n} for r1) and works ${WORK_MS} ms more. Each process starts as the one before asks, so in some orderings a process gets its second resource first and in others the asks cross: a cycle of waits no site sees. Every interleaving is explored (no reduction: checkDeadlocks reads the wait-for graph in the order the events happened across sites). At the end: no report names a cycle that never existed, no cycle is left, every victim was named by a report, no process waits for itself, and every process finished or was aborted as a victim (never both)`,
  defaultN: 4,
  minN: 2,
  maxN: 4,
  // Exhausted at n = 2 and 3 (60 and about 4,100 states); bounded at n = 4 by 100 schedules (the
  // space is far larger: 300 schedules reach about 13,000 states).
  defaults: (n) => ({ depth: 120, reduction: false, ...(n === 4 ? { maxSchedules: 100 } : {}) }),
  liveness(n) {
    const processes = ringWorkload(n, { startAt: (i) => (i - 1) * WORK_MS }).processes
    return [
      {
        name: 'every process finishes or is aborted (no deadlock is left standing)',
        holds: ({ events }) =>
          processes.every((p) =>
            (events as readonly TimedDeadlockEvent[]).some(
              (e) =>
                (e.event.type === 'finished' || e.event.type === 'aborted') &&
                e.event.process === p.id,
            ),
          ),
      },
    ]
  },
  build(n) {
    const workload = ringWorkload(n, { startAt: (i) => (i - 1) * WORK_MS })
    return {
      setup(net) {
        net.launch(
          workload.sites,
          resourceManager({
            resources: workload.resources,
            processes: workload.processes,
            strategy: { kind: 'chandy-misra-haas' },
          }),
        )
      },
      invariant({ net, events }) {
        if (net.choices().length > 0) return undefined
        const verdict = checkDeadlocks(events as readonly TimedDeadlockEvent[])
        if (verdict.phantoms.length > 0)
          return `a report names the cycle ${verdict.phantoms[0]!.cycle.map(String).join(' → ')}, which never existed`
        if (verdict.unresolved !== undefined)
          return `the cycle ${verdict.unresolved.map(String).join(' → ')} is left at the end`
        if (verdict.unreportedVictims.length > 0)
          return `process ${String(verdict.unreportedVictims[0])} was aborted as a victim no report named`
        if (verdict.selfWaits > 0) return 'a process waited for itself'
        for (const p of workload.processes) {
          const finished = verdict.finished.has(p.id)
          const aborted = verdict.aborted.has(p.id)
          if (finished === aborted)
            return `process ${String(p.id)} ${finished ? 'finished and was aborted' : 'neither finished nor was aborted'}`
        }
        return undefined
      },
    }
  },
}
