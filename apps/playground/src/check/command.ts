/**
 * `sd check <scenario>`: explores every ordering of a small configuration of the scenario's
 * protocol (see `@sd/transport/explore`) and prints how many schedules, whether the space was
 * exhausted within the bounds, and the first counterexample with its diagram.
 */
import { parseArgs } from 'node:util'
import { emitsOf } from '@sd/transport'
import {
  type ExploreOptions,
  type ExploreResult,
  type ExploreScenario,
  explore,
  explorePctRuns,
  type Replay,
  replay,
} from '@sd/transport/explore'
import { renderDiagram } from '../diagram.js'
import { checkTraceTarget, writeTraceFile } from '../trace-file.js'
import { UsageError } from '../usage.js'
import {
  type Comparison,
  comparisonJson,
  comparisonLines,
  describe,
  figuresOf,
  statesPerSecond,
  type Timed,
} from './figures.js'
import { type CheckSpec, checks } from './index.js'
import { labLink } from './lab-link.js'
import { markedLassoTrace } from './lasso-marks.js'
import { livenessFailed, livenessLines, replayCommand } from './liveness.js'
import { defaultsAt, whatAt } from './spec.js'
import { CHECK_USAGE, checkSpecHelp } from './usage.js'

interface Io {
  out(text: string): void
  /** Where `--progress` lines go (stderr): not `out`, which `--json` keeps to one object. */
  err?(text: string): void
  columns?: number | undefined
}

function integer(flag: string, text: string, min: number, max: number): number {
  if (!/^\d+$/.test(text))
    throw new UsageError(`${flag} takes an integer, got ${JSON.stringify(text)}`)
  const value = Number(text)
  if (value < min || value > max)
    throw new UsageError(`${flag} must be in ${min}..${max}, got ${value}`)
  return value
}

/** `registry`: the specs to choose from (the tests add broken variants); default every spec. */
export function runCheck(
  args: readonly string[],
  io: Io,
  registry: readonly CheckSpec[] = checks,
): number {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      n: { type: 'string' },
      depth: { type: 'string' },
      faults: { type: 'string' },
      'max-schedules': { type: 'string' },
      'max-states': { type: 'string' },
      progress: { type: 'string' },
      pct: { type: 'string' },
      compare: { type: 'boolean' },
      'no-liveness': { type: 'boolean' },
      symmetry: { type: 'boolean' },
      replay: { type: 'string' },
      json: { type: 'boolean' },
      trace: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  if (values.help) {
    const spec = positionals.length === 1 ? find(positionals[0]!, registry) : undefined
    io.out(spec ? checkSpecHelp(spec) : CHECK_USAGE)
    return 0
  }
  const names = registry.map((c) => c.scenario).join(', ')
  if (positionals.length !== 1) throw new UsageError(`check takes one scenario (one of ${names})`)
  const spec = find(positionals[0]!, registry)
  if (values.trace !== undefined) checkTraceTarget(values.trace)
  const n = values.n === undefined ? spec.defaultN : integer('--n', values.n, spec.minN, spec.maxN)
  const faults = values.faults === undefined ? 0 : integer('--faults', values.faults, 0, 5)
  const pct = values.pct === undefined ? undefined : integer('--pct', values.pct, 1, 1_000_000)
  if (pct !== undefined && values.compare)
    throw new UsageError('--compare compares two exhaustive searches: not with --pct')
  const options: ExploreOptions = {
    ...defaultsAt(spec, n),
    ...(values.depth === undefined ? {} : { depth: integer('--depth', values.depth, 1, 10_000) }),
    ...(values['max-schedules'] === undefined
      ? {}
      : { maxSchedules: integer('--max-schedules', values['max-schedules'], 1, 100_000_000) }),
    ...(values['max-states'] === undefined
      ? {}
      : { maxStates: integer('--max-states', values['max-states'], 1, 1_000_000_000) }),
    ...(faults === 0
      ? {}
      : { faults: { loss: faults, duplicate: faults, crash: faults, total: faults } }),
  }
  if (values.progress !== undefined) {
    if (pct !== undefined) throw new UsageError('--progress counts states: not with --pct')
    options.progressEvery = integer('--progress', values.progress, 1, 1_000_000_000)
    options.onProgress = progressLine(io)
  }
  if (values.symmetry && spec.symmetry === undefined)
    throw new UsageError(
      `--symmetry: ${spec.scenario} declares no interchangeable nodes (its protocol or check tells them apart)`,
    )
  if (values.symmetry && pct !== undefined)
    throw new UsageError('--symmetry reduces the stateful search: not with --pct')
  const symmetric = values.symmetry === true
  const safety = symmetric ? { ...spec.build(n), ...spec.symmetry!(n) } : spec.build(n)
  if (values.replay !== undefined) return replaySchedule(spec, n, safety, values, io)
  // Liveness needs the stateful search and PCT runs do not check it; --no-liveness skips it, and
  // so does --symmetry (the explorer finds no lassos in a symmetry-reduced graph).
  const goals =
    pct === undefined && !values['no-liveness'] && !symmetric ? (spec.liveness?.(n) ?? []) : []
  const scenario: ExploreScenario = goals.length > 0 ? { ...safety, liveness: goals } : safety
  // Wall time only to report a rate (states per second); nothing is decided by it.
  const started = performance.now()
  const result: ExploreResult =
    pct === undefined
      ? explore(scenario, options)
      : explorePctRuns(scenario, { runs: pct, d: 3 }, options)
  const elapsedMs = Math.round(performance.now() - started)
  const compared = values.compare
    ? compareSearches(safety, options, goals.length === 0 ? { result, elapsedMs } : undefined)
    : undefined
  const violations = result.counterexample ? [result.counterexample.message] : []
  const lasso = result.liveness?.find((goal) => goal.lasso !== undefined)?.lasso
  // The counterexample replayed (shrunk, then virtual-time order), else a lasso exactly.
  const replayed = result.counterexample
    ? replay(scenario, result.counterexample.shrunk)
    : lasso
      ? replay(scenario, lasso.schedule, { maxSteps: 0 })
      : undefined
  // A lasso's trace marks where its loop begins and where each turn ends.
  const document =
    !result.counterexample && lasso
      ? markedLassoTrace(scenario, lasso)
      : replayed?.net.traceDocument()
  if (values.trace !== undefined && document) writeTraceFile(values.trace, JSON.stringify(document))
  const failed = violations.length > 0 || livenessFailed(result.liveness)
  if (values.json) {
    io.out(
      JSON.stringify({
        scenario: spec.scenario,
        n,
        mode: pct === undefined ? 'exhaustive' : 'pct',
        bounds: {
          depth: options.depth ?? 100,
          faults,
          ...(options.faults === undefined ? {} : { faultBudget: options.faults }),
          maxSchedules: options.maxSchedules ?? 100_000,
          maxStates: options.maxStates ?? 1_000_000,
          ...(options.until === undefined ? {} : { until: options.until }),
        },
        search: result.mode,
        reduction: result.reduction,
        ...(result.symmetry ? { symmetry: result.symmetry } : {}),
        ...figuresOf(result),
        elapsedMs,
        statesPerSecond: statesPerSecond(result, elapsedMs),
        violations,
        ...(result.counterexample
          ? {
              counterexample: result.counterexample,
              lab: labLink(spec.scenario, n, result.counterexample.shrunk),
            }
          : {}),
        liveness: (result.liveness ?? []).map((goal) =>
          goal.lasso
            ? { ...goal, replay: replayCommand(spec.scenario, n, goal.lasso.schedule) }
            : goal,
        ),
        ...(compared ? { compare: comparisonJson(compared) } : {}),
      }),
    )
    return failed ? 1 : 0
  }
  io.out(`check ${spec.scenario} (n=${n}): ${whatAt(spec, n)}`)
  io.out(describe({ result, options, pct: pct !== undefined, elapsedMs }))
  if (compared) for (const line of comparisonLines(compared)) io.out(line)
  if (result.liveness !== undefined)
    for (const line of livenessLines(result.liveness, spec.scenario, n)) io.out(line)
  else if (symmetric && spec.liveness !== undefined)
    io.out('liveness: not checked with --symmetry (run without it for the goals)')
  if (!result.counterexample) {
    io.out('invariant held in every schedule explored')
    if (lasso && replayed) {
      io.out('')
      io.out('the first lasso replayed (its prefix, then its loop twice, marked):')
      io.out(diagramOf(replayed, io, document?.events))
    }
    // Only a counterexample or a lasso has a run to replay and write.
    if (values.trace !== undefined)
      io.out(
        replayed
          ? `trace of the replayed lasso written to ${values.trace}`
          : `trace: nothing written to ${values.trace} (no counterexample or lasso to replay)`,
      )
    return failed ? 1 : 0
  }
  io.out(`VIOLATION: ${result.counterexample.message}`)
  io.out(`schedule: ${result.counterexample.schedule}`)
  io.out(`shrunk:   ${result.counterexample.shrunk || '(none: the default order breaks it)'}`)
  io.out(
    `replay:   the shrunk schedule, then virtual-time order${replayed?.violation ? '' : ' (did not break it again!)'}`,
  )
  io.out(
    `lab:      ${labLink(spec.scenario, n, result.counterexample.shrunk)} (after the lab's address: pnpm lab)`,
  )
  io.out('')
  io.out(diagramOf(replayed!, io))
  if (values.trace !== undefined)
    io.out(`trace of the replayed counterexample written to ${values.trace}`)
  return 1
}

/** A `--progress` line: the stateful search's counts so far and its rate, on stderr. */
function progressLine(io: Io): (result: Readonly<ExploreResult>) => void {
  // Wall time only to report a rate; nothing is decided by it.
  const started = performance.now()
  return (result) => {
    const seconds = (performance.now() - started) / 1000
    const rate = seconds > 0 ? Math.round(result.states / seconds) : 0
    io.err?.(
      `check: ${result.states.toLocaleString('en')} states, ${result.transitions.toLocaleString('en')} transitions, ${seconds.toFixed(0)} s (${rate.toLocaleString('en')} states/s)`,
    )
  }
}

function diagramOf(replayed: Replay, io: Io, events = replayed.net.trace): string {
  return renderDiagram(events, {
    nodes: replayed.net.nodeIds,
    width: io.columns ?? 100,
    maxRows: 80,
  })
}

/**
 * --compare: the safety scenario searched stateful and stateless on the same bounds; the run
 * itself stands for one side when it was that search without liveness goals.
 */
function compareSearches(
  scenario: ExploreScenario,
  options: ExploreOptions,
  run: Timed | undefined,
): Comparison {
  const timed = (stateful: boolean): Timed => {
    const started = performance.now()
    const result = explore(scenario, { ...options, stateful })
    return { result, elapsedMs: Math.round(performance.now() - started) }
  }
  const stateful = run?.result.mode === 'stateful' ? run : timed(true)
  return {
    stateful: stateful.result.mode === 'stateful' ? stateful : undefined,
    stateless: run?.result.mode === 'stateless' ? run : timed(false),
  }
}

/**
 * --replay SCHEDULE: that schedule exactly (a counterexample's, a lasso's), nothing after it;
 * prints whether the invariant broke, each liveness goal at the end, and the diagram.
 */
function replaySchedule(
  spec: CheckSpec,
  n: number,
  scenario: ExploreScenario,
  values: { json?: boolean | undefined; trace?: string | undefined; replay?: string | undefined },
  io: Io,
): number {
  const replayed = replay(scenario, values.replay!, { maxSteps: 0 })
  const state = { net: replayed.net, events: emitsOf(replayed.net.trace) }
  const goals = (spec.liveness?.(n) ?? []).map((goal) => ({
    name: goal.name,
    holds: goal.holds(state),
  }))
  if (values.trace !== undefined)
    writeTraceFile(values.trace, JSON.stringify(replayed.net.traceDocument()))
  if (values.json) {
    io.out(
      JSON.stringify({
        scenario: spec.scenario,
        n,
        replay: values.replay,
        skipped: replayed.skipped,
        violations: replayed.violation === undefined ? [] : [replayed.violation],
        liveness: goals,
      }),
    )
  } else {
    io.out(`replay of ${spec.scenario} (n=${n}): the schedule exactly, nothing after it`)
    if (replayed.skipped.length > 0)
      io.out(`skipped (not pending when their turn came): ${replayed.skipped.join(' ')}`)
    io.out(replayed.violation ? `VIOLATION: ${replayed.violation}` : 'invariant held')
    for (const goal of goals)
      io.out(
        `liveness: ${goal.name}: ${goal.holds ? 'reached' : 'not reached'} at the end of the replay`,
      )
    io.out('')
    io.out(diagramOf(replayed, io))
    if (values.trace !== undefined) io.out(`trace of the replay written to ${values.trace}`)
  }
  return replayed.violation === undefined && replayed.skipped.length === 0 ? 0 : 1
}

function find(name: string, registry: readonly CheckSpec[]): CheckSpec {
  const spec = registry.find((c) => c.scenario === name)
  if (spec === undefined)
    throw new UsageError(
      `sd check knows ${registry.map((c) => c.scenario).join(', ')}; ${JSON.stringify(name)} is not one of them`,
    )
  return spec
}

export type { CheckSpec }
