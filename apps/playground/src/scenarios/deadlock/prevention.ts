/**
 * Deadlock prevention by timestamps in the playground: the cycle workload of deadlock-cmh run
 * under wait-die, then under wound-wait, on the same sites (two children of one composition).
 * Waits only go one way in age, so no deadlock forms; aborted processes restart with their old
 * timestamp and every process finishes. The result counts each rule's aborts and restarts.
 */
import {
  type Prevention,
  type ProcessId,
  type ProcessSpec,
  type ResourceManagerProtocol,
  resourceManager,
  type TimedDeadlockEvent,
} from '@sd/deadlock'
import {
  type ComposedEvent,
  compose,
  createRandom,
  InvalidArgumentError,
  messageType,
  type NodeId,
  snapshotFields,
  type TraceEvent,
} from '@sd/transport'
import type { Scenario, Unfinished } from '../../scenario.js'
import { appendOnly, keepSideState, type SideState } from '../../side-state.js'
import { describeDeadlock } from './describe.js'
import { checkResult, distinctCycles, judge } from './judge.js'
import {
  arrow,
  deadlockScenario,
  distinct,
  ms,
  newNetwork,
  RESOLVES,
  ringWorkload,
  sortIds,
  WORK_MS,
} from './run.js'

/** The composition of one manager per rule on every site. */
type BothRules = Record<Prevention, ResourceManagerProtocol>

const RULES: readonly Prevention[] = ['wait-die', 'wound-wait']
/** An aborted process restarts this long after, with its old timestamp. */
const RESTART_MS = 5
/** Wound-wait starts this long after the last wait-die process finished. */
const GAP_MS = 20

interface RuleRun {
  rule: Prevention
  events: TimedDeadlockEvent[]
  startMs: number | undefined
  endMs: number | undefined
}

export const deadlockPrevention: Scenario = deadlockScenario({
  name: 'deadlock-prevention',
  title: 'wait-die and wound-wait: timestamps decide who waits, no deadlock, everyone finishes',
  description: `The cycle of deadlock-cmh, once under each rule: sites 1..n (default 4), resource r<i> at site i; process i takes r<i>, works ${WORK_MS} ms, asks for r<i+1> (n for r1) and holds both ${WORK_MS} ms. It runs at site i - 1 (process 1 at site n), so every request, die and wound crosses the network. Start times are drawn from the seed in 0..n ms, and a process's timestamp is its start time, kept when it restarts, so it ages and cannot starve. Wait-die: an older requester waits, a younger one dies (aborts, releasing what it holds, and restarts ${RESTART_MS} ms later). Wound-wait: an older requester wounds the younger holder (it aborts and restarts), a younger requester waits. Under wait-die waits go only from older to younger, so the cycle cannot close. Under wound-wait an older process waits for a younger one only until its wound lands: a cycle of waits may exist for that long, but it is no deadlock, since the wound breaks it without outside help (byRule.onCycle and longestCycleMs show it; deadlocked leaves out the waits whose holder is being wounded, and stays empty). Wait-die runs first; ${GAP_MS} ms after its last process finished, wound-wait runs the same workload on the same sites (two children of one composition: --proto wait-die or --proto wound-wait draws one).`,
  checks: 'every process finishes under each rule, no deadlock is ever reported, no cycle is left.',
  minN: 2,
  maxN: 16,
  run({ n, seed, faults }) {
    const random = createRandom(`deadlock-prevention/${seed}`).next
    const starts = Array.from({ length: n }, () => Math.round(random() * n * 1000) / 1000)
    const workload = ringWorkload(n, {
      startAt: (i) => starts[i - 1]!,
      home: (i) => (i === 1 ? n : i - 1),
    })
    const runs: RuleRun[] = RULES.map((rule) => ({
      rule,
      events: [],
      startMs: undefined,
      endMs: undefined,
    }))
    const [first, second] = runs as [RuleRun, RuleRun]
    first.startMs = 0
    const net = newNetwork(seed, faults)
    const factory = (rule: Prevention, processes: readonly ProcessSpec[]) =>
      resourceManager({
        resources: workload.resources,
        processes,
        strategy: { kind: 'prevention', rule, restartAfterMs: RESTART_MS },
      })
    const waitDie = factory('wait-die', workload.processes)
    const woundWait = factory('wound-wait', [])
    const finished = new Map<Prevention, Set<ProcessId>>(RULES.map((r) => [r, new Set()]))
    const onEmit = (node: NodeId, wrapped: ComposedEvent<BothRules>, t: number) => {
      if (wrapped.proto === 'compose') return // a notice of the composition itself
      const { proto, event } = wrapped
      const run = runs.find((r) => r.rule === proto)
      if (run === undefined) return
      run.events.push({ node, t, event })
      if (event.type !== 'finished') return
      const done = finished.get(run.rule)!
      done.add(event.process)
      if (done.size < workload.processes.length) return
      run.endMs = t
      if (run !== first) return
      // Every wait-die process finished: the same workload, under wound-wait.
      second.startMs = t + GAP_MS
      for (const process of workload.processes)
        net.request(
          process.home,
          { proto: 'wound-wait', req: { type: 'run', process } },
          second.startMs,
        )
    }
    net.launch(
      workload.sites,
      (self) => compose({ 'wait-die': waitDie(self), 'wound-wait': woundWait(self) }),
      { onEmit },
    )
    keepSideState(net, preventionState(runs, finished))
    net.run()

    const judged = runs.map((run) => judgeRule(run, workload.processes, net.trace))
    const all = judged.map((j) => j.judged)
    const reports = all.flatMap((j) => j.reports)
    const victims = distinct(reports.map((r) => r.victim))
    const ids = workload.processes.map((p) => p.id)
    return {
      net,
      annotate: describeDeadlock(net.trace),
      violations: judged.flatMap((j) => j.violations),
      liveness: { property: RESOLVES, unfinished: judged.flatMap((j) => j.unfinished) },
      result: {
        rules: [...RULES],
        starts: Object.fromEntries(workload.processes.map((p) => [String(p.id), p.startAt])),
        deadlocked: sortIds(new Set(all.flatMap((j) => j.deadlocked))),
        cycles: distinctCycles(reports),
        victim: victims[0] ?? null,
        victims,
        finished: ids.filter((id) => all.every((j) => j.verdict.finished.has(id))),
        aborted: sortIds(new Set(all.flatMap((j) => [...j.verdict.aborted]))),
        byRule: Object.fromEntries(judged.map((j) => [j.rule, j.result])),
      },
      summary: judged.map(({ rule, judged: j, result }) => {
        const end = result.endMs === null ? '' : ` by t=${result.endMs} ms`
        return `${rule}: ${j.aborts} abort(s), ${j.restarts} restart(s), ${j.verdict.finished.size} of ${ids.length} finished${end}; longest cycle of waits ${ms(j.longestCycleMs)} ms, deadlocked: ${j.deadlocked.join(', ') || 'none'}`
      }),
    }
  },
})

/**
 * One rule's run judged: every process must finish, no deadlock be reported, no cycle be left.
 * Under wound-wait an older process waiting for a younger one has wounded it already: that wait
 * ends by itself, so it makes no deadlock (`preempted`).
 */
function judgeRule(run: RuleRun, processes: readonly ProcessSpec[], trace: readonly TraceEvent[]) {
  const stamps = new Map<ProcessId, number>()
  for (const { event } of run.events)
    if (event.type === 'started') stamps.set(event.process, event.timestamp)
  const older = (a: ProcessId, b: ProcessId) => {
    const [ta, tb] = [stamps.get(a) ?? 0, stamps.get(b) ?? 0]
    return ta !== tb ? ta < tb : String(a) < String(b)
  }
  const judged = judge(run.events, run.rule === 'wound-wait' ? { preempted: older } : {})
  const { verdict } = judged
  const violations: string[] = []
  const unfinished: Unfinished[] = []
  for (const p of processes)
    if (!verdict.finished.has(p.id))
      unfinished.push({
        what: `${run.rule}: process ${String(p.id)}`,
        why: 'did not finish (prevention aborts and restarts, so every process must finish)',
        expected: false,
      })
  for (const r of judged.reports)
    violations.push(`${run.rule}: a deadlock was reported at t=${ms(r.t)} ms: ${arrow(r.cycle)}`)
  if (verdict.unresolved !== undefined)
    unfinished.push({
      what: `${run.rule}: the cycle of waits ${arrow(verdict.unresolved)}`,
      why: 'left at the end',
      expected: false,
    })
  return {
    rule: run.rule,
    judged,
    violations,
    unfinished,
    result: {
      startMs: run.startMs === undefined ? null : ms(run.startMs),
      endMs: run.endMs === undefined ? null : ms(run.endMs),
      aborts: judged.aborts,
      restarts: judged.restarts,
      finished: sortIds(verdict.finished),
      aborted: sortIds(verdict.aborted),
      deadlocked: judged.deadlocked,
      onCycle: judged.onCycle,
      longestCycleMs: ms(judged.longestCycleMs),
      messages: messagesOf(trace, run.rule),
      check: checkResult(verdict),
    },
  }
}

/** The messages of one child of the composition, by type. */
function messagesOf(
  trace: readonly TraceEvent[],
  proto: string,
): { total: number; byType: Record<string, number> } {
  const byType: Record<string, number> = {}
  let total = 0
  for (const e of trace) {
    if (e.type !== 'send' || e.proto !== proto) continue
    const type = messageType(e.msg)
    byType[type] = (byType[type] ?? 0) + 1
    total++
  }
  return { total, byType }
}

/**
 * What the prevention run keeps beside its network, for the lab's checkpoints: per rule its
 * events (they only grow), when it started and ended, and the processes finished (when all have,
 * wound-wait's run is planned: the run reads these).
 */
function preventionState(
  runs: readonly RuleRun[],
  finished: Map<Prevention, Set<ProcessId>>,
): SideState {
  const lists = appendOnly(runs.map((r) => r.events))
  return {
    save: () => ({
      events: lists.save(),
      times: runs.map((r) => [r.startMs ?? null, r.endMs ?? null]),
      finished: RULES.map((rule) => [...finished.get(rule)!]),
    }),
    restore(saved) {
      const {
        events,
        times,
        finished: done,
      } = snapshotFields(saved, 'deadlock-prevention side state', ['events', 'times', 'finished'])
      const timesOk =
        Array.isArray(times) &&
        times.length === runs.length &&
        times.every(
          (t) =>
            Array.isArray(t) && t.length === 2 && t.every((x) => x === null || Number.isFinite(x)),
        )
      const doneOk =
        Array.isArray(done) &&
        done.length === RULES.length &&
        done.every((d) => Array.isArray(d) && d.every(isProcessId))
      if (!timesOk || !doneOk)
        throw new InvalidArgumentError('deadlock-prevention side state: not one save() gave')
      lists.restore(events)
      runs.forEach((r, i) => {
        const [start, end] = (times as (number | null)[][])[i]!
        r.startMs = start ?? undefined
        r.endMs = end ?? undefined
      })
      RULES.forEach((rule, i) => {
        const set = finished.get(rule)!
        set.clear()
        for (const id of (done as ProcessId[][])[i]!) set.add(id)
      })
    },
  }
}

const isProcessId = (x: unknown): x is ProcessId =>
  typeof x === 'string' || (typeof x === 'number' && Number.isFinite(x))
