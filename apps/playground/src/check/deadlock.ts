/**
 * Check specs for the deadlock package: the distributed resource manager on the cycle workload,
 * under each strategy: Chandy-Misra-Haas, the centralized detector, wait-die and wound-wait.
 */
import {
  checkDeadlocks,
  type ResourceManagerOptions,
  resourceManager,
  type TimedDeadlockEvent,
} from '@sd/deadlock'
import type { ExploreScenario, LivenessGoal } from '@sd/transport/explore'
import { ringWorkload, WORK_MS } from '../scenarios/deadlock/run.js'
import { atEnd, type CheckSpec } from './spec.js'

type Strategy = ResourceManagerOptions['strategy']

const workloadOf = (n: number) => ringWorkload(n, { startAt: (i) => (i - 1) * WORK_MS })

const WORKLOAD = (n: number) =>
  `sites 1..${n}, resource r<i> at site i; process i runs at site i from t = (i - 1) x ${WORK_MS} ms: it takes r<i>, works ${WORK_MS} ms, asks for r<i+1> (process ${n} for r1) and works ${WORK_MS} ms more. Each process starts as the one before asks, so in some orderings a process gets its second resource first and in others the asks cross: a cycle of waits no site sees`

/**
 * The manager under `strategy` on the cycle workload, judged by checkDeadlocks after every step:
 * no report names a cycle that never existed, every victim was named by a report, no process
 * waits for itself; at the end (`until`: nothing due by then), with `endJudged`, no cycle is left
 * and every process finished or was aborted as a victim (never both), or with `prevention`, every
 * process finished (aborted ones restart) and no deadlock was ever reported.
 */
export function deadlockScenario(
  n: number,
  strategy: Strategy,
  options: { until?: number; endJudged: boolean },
): ExploreScenario {
  const workload = workloadOf(n)
  const prevention = strategy.kind === 'prevention'
  return {
    setup(net) {
      net.launch(
        workload.sites,
        resourceManager({
          resources: workload.resources,
          processes: workload.processes,
          strategy,
        }),
      )
    },
    invariant({ net, events }) {
      const verdict = checkDeadlocks(events as readonly TimedDeadlockEvent[])
      if (verdict.phantoms.length > 0)
        return `a report names the cycle ${verdict.phantoms[0]!.cycle.map(String).join(' → ')}, which never existed`
      if (verdict.unreportedVictims.length > 0)
        return `process ${String(verdict.unreportedVictims[0])} was aborted as a victim no report named`
      if (verdict.selfWaits > 0) return 'a process waited for itself'
      if (prevention && events.some((e) => (e.event as { type?: string }).type === 'deadlock'))
        return 'a deadlock was reported under prevention'
      if (!options.endJudged || !atEnd(net, options.until)) return undefined
      if (verdict.unresolved !== undefined)
        return `the cycle ${verdict.unresolved.map(String).join(' → ')} is left at the end`
      for (const p of workload.processes) {
        const finished = verdict.finished.has(p.id)
        const aborted = verdict.aborted.has(p.id)
        if (prevention && !finished) return `process ${String(p.id)} did not finish`
        if (!prevention && finished === aborted)
          return `process ${String(p.id)} ${finished ? 'finished and was aborted' : 'neither finished nor was aborted'}`
      }
      return undefined
    },
  }
}

/** Liveness: every process finishes, or (detection) is aborted as a victim. */
export function settles(n: number, prevention: boolean): LivenessGoal {
  const processes = workloadOf(n).processes
  const done = prevention ? ['finished'] : ['finished', 'aborted']
  return {
    name: prevention
      ? 'every process finishes (an aborted one restarts)'
      : 'every process finishes or is aborted (no deadlock is left standing)',
    holds: ({ events }) =>
      processes.every((p) =>
        (events as readonly TimedDeadlockEvent[]).some(
          (e) => done.includes(e.event.type) && 'process' in e.event && e.event.process === p.id,
        ),
      ),
  }
}

export const cmhCheck: CheckSpec = {
  scenario: 'deadlock-cmh',
  what: (n) =>
    `${WORKLOAD(n)}. Chandy-Misra-Haas probes find it. Every interleaving is explored (no reduction: checkDeadlocks reads the wait-for graph in the order the events happened across sites). No report names a cycle that never existed, every victim was named by a report, no process waits for itself; at the end no cycle is left and every process finished or was aborted as a victim (never both)`,
  defaultN: 4,
  minN: 2,
  maxN: 4,
  // Exhausted at n = 2 and 3 (60 and about 4,100 states); bounded at n = 4 by 100 schedules: the
  // space is 96,280 states (2,902 schedules, liveness holds), about two minutes to exhaust.
  defaults: (n) => ({ depth: 120, reduction: false, ...(n === 4 ? { maxSchedules: 100 } : {}) }),
  liveness: (n) => [settles(n, false)],
  build(n) {
    return deadlockScenario(n, { kind: 'chandy-misra-haas' }, { endJudged: true })
  },
}

const COLLECT_EVERY_MS = 15
const CENTRAL_UNTIL_MS = 40

export const centralizedDetectionCheck: CheckSpec = {
  scenario: 'deadlock-centralized',
  what: (n) =>
    `${WORKLOAD(n)}. Site 1 coordinates: every ${COLLECT_EVERY_MS} ms it collects every site's waits, merges them, and confirms a cycle's waits before it declares a deadlock and aborts a victim; time is bounded at ${CENTRAL_UNTIL_MS} ms. No reduction (checkDeadlocks reads the global order). No report names a cycle that never existed (the sites are read at different moments: without the confirmation round a merge may show a phantom), every victim was named by a report, no process waits for itself. The end is not judged (the explorer may hold a request past the last round within the bound): that the cycle is broken is the liveness goal`,
  defaultN: 3,
  minN: 2,
  maxN: 3,
  // Exhausted at n = 3 (about 7,500 states).
  defaults: { depth: 150, reduction: false, until: CENTRAL_UNTIL_MS },
  liveness: (n) => [settles(n, false)],
  build(n) {
    return deadlockScenario(n, centralizedDetection(true), {
      until: CENTRAL_UNTIL_MS,
      endJudged: false,
    })
  },
}

/** The centralized detector's strategy (the tests pass `confirm: false`). */
export function centralizedDetection(confirm: boolean): Strategy {
  return { kind: 'centralized', coordinator: 1, periodMs: COLLECT_EVERY_MS, confirm }
}

const RESTART_MS = 5

const preventionCheck = (rule: 'wait-die' | 'wound-wait'): CheckSpec => ({
  scenario: `deadlock-${rule}`,
  what: (n) =>
    `${WORKLOAD(n)}. Prevention by ${rule} (timestamps are start times, kept across restarts; an aborted process restarts ${RESTART_MS} ms later). No reduction (checkDeadlocks reads the global order). No deadlock is ever reported, no report names a cycle that never existed, no process waits for itself; at the end no cycle is left and every process finished`,
  defaultN: 2,
  minN: 2,
  maxN: 3,
  // Exhausted at n = 2 (wait-die about 3,900 states, some runs cut by the depth bound while the
  // younger process dies and restarts; wound-wait 69); bounded at n = 3 by 200 schedules (far
  // larger: wait-die did not finish in 2.5 minutes).
  defaults: (n) => ({ depth: 150, reduction: false, ...(n === 3 ? { maxSchedules: 200 } : {}) }),
  liveness: (n) => [settles(n, true)],
  build(n) {
    return deadlockScenario(
      n,
      { kind: 'prevention', rule, restartAfterMs: RESTART_MS },
      { endJudged: true },
    )
  },
})

export const waitDieCheck = preventionCheck('wait-die')
export const woundWaitCheck = preventionCheck('wound-wait')
