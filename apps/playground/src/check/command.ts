/**
 * `sd check <scenario>`: explores every ordering of a small configuration of the scenario's
 * protocol (see `@sd/transport/explore`) and prints how many schedules, whether the space was
 * exhausted within the bounds, and the first counterexample with its diagram.
 */
import { parseArgs } from 'node:util'
import {
  type ExploreOptions,
  type ExploreResult,
  explore,
  explorePctRuns,
  replay,
} from '@sd/transport/explore'
import { renderDiagram } from '../diagram.js'
import { checkTraceTarget, writeTraceFile } from '../trace-file.js'
import { UsageError } from '../usage.js'
import { type CheckSpec, checks } from './index.js'
import { defaultsAt, whatAt } from './spec.js'
import { CHECK_USAGE, checkSpecHelp } from './usage.js'

interface Io {
  out(text: string): void
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

export function runCheck(args: readonly string[], io: Io): number {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      n: { type: 'string' },
      depth: { type: 'string' },
      faults: { type: 'string' },
      'max-schedules': { type: 'string' },
      pct: { type: 'string' },
      json: { type: 'boolean' },
      trace: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  if (values.help) {
    const spec = positionals.length === 1 ? find(positionals[0]!) : undefined
    io.out(spec ? checkSpecHelp(spec) : CHECK_USAGE)
    return 0
  }
  const names = checks.map((c) => c.scenario).join(', ')
  if (positionals.length !== 1) throw new UsageError(`check takes one scenario (one of ${names})`)
  const spec = find(positionals[0]!)
  if (values.trace !== undefined) checkTraceTarget(values.trace)
  const n = values.n === undefined ? spec.defaultN : integer('--n', values.n, spec.minN, spec.maxN)
  const faults = values.faults === undefined ? 0 : integer('--faults', values.faults, 0, 5)
  const options: ExploreOptions = {
    ...defaultsAt(spec, n),
    ...(values.depth === undefined ? {} : { depth: integer('--depth', values.depth, 1, 10_000) }),
    ...(values['max-schedules'] === undefined
      ? {}
      : { maxSchedules: integer('--max-schedules', values['max-schedules'], 1, 100_000_000) }),
    ...(faults === 0
      ? {}
      : { faults: { loss: faults, duplicate: faults, crash: faults, total: faults } }),
  }
  const scenario = spec.build(n)
  // Wall time only to report a rate (states per second); nothing is decided by it.
  const started = performance.now()
  const result: ExploreResult =
    values.pct === undefined
      ? explore(scenario, options)
      : explorePctRuns(
          scenario,
          { runs: integer('--pct', values.pct, 1, 1_000_000), d: 3 },
          options,
        )
  const elapsedMs = Math.round(performance.now() - started)
  const violations = result.counterexample ? [result.counterexample.message] : []
  const replayed = result.counterexample
    ? replay(scenario, result.counterexample.shrunk)
    : undefined
  if (values.trace !== undefined && replayed)
    writeTraceFile(values.trace, JSON.stringify(replayed.net.traceDocument()))
  if (values.json) {
    io.out(
      JSON.stringify({
        scenario: spec.scenario,
        n,
        mode: values.pct === undefined ? 'exhaustive' : 'pct',
        bounds: {
          depth: options.depth ?? 100,
          faults,
          maxSchedules: options.maxSchedules ?? 100_000,
        },
        search: result.mode,
        reduction: result.reduction,
        states: result.states,
        transitions: result.transitions,
        executions: result.executions,
        elapsedMs,
        statesPerSecond: statesPerSecond(result, elapsedMs),
        schedules: result.schedules,
        exhausted: result.exhausted,
        cutByDepth: result.cutByDepth,
        terminalStates: result.terminalStates,
        steps: result.steps,
        violations,
        ...(result.counterexample ? { counterexample: result.counterexample } : {}),
      }),
    )
    return violations.length > 0 ? 1 : 0
  }
  io.out(`check ${spec.scenario} (n=${n}): ${whatAt(spec, n)}`)
  io.out(describe(result, options, faults, values.pct !== undefined, elapsedMs))
  if (!result.counterexample) {
    io.out('invariant held in every schedule explored')
    // Only a counterexample has a run to replay and write.
    if (values.trace !== undefined)
      io.out(`trace: nothing written to ${values.trace} (no counterexample to replay)`)
    return 0
  }
  io.out(`VIOLATION: ${result.counterexample.message}`)
  io.out(`schedule: ${result.counterexample.schedule}`)
  io.out(`shrunk:   ${result.counterexample.shrunk || '(none: the default order breaks it)'}`)
  io.out(
    `replay:   the shrunk schedule, then virtual-time order${replayed?.violation ? '' : ' (did not break it again!)'}`,
  )
  io.out('')
  io.out(
    renderDiagram(replayed!.net.trace, {
      nodes: replayed!.net.nodeIds,
      width: io.columns ?? 100,
      maxRows: 80,
    }),
  )
  if (values.trace !== undefined)
    io.out(`trace of the replayed counterexample written to ${values.trace}`)
  return 1
}

function find(name: string): CheckSpec {
  const spec = checks.find((c) => c.scenario === name)
  if (spec === undefined)
    throw new UsageError(
      `sd check knows ${checks.map((c) => c.scenario).join(', ')}; ${JSON.stringify(name)} is not one of them`,
    )
  return spec
}

function describe(
  result: ExploreResult,
  options: ExploreOptions,
  faults: number,
  pct: boolean,
  elapsedMs: number,
): string {
  const exhausted = pct
    ? 'random (PCT) runs: not exhaustive'
    : result.exhausted
      ? 'exhausted within the bounds'
      : 'NOT exhausted (schedule limit, or stopped at the counterexample)'
  const search =
    result.mode === 'stateful'
      ? `search: stateful (every protocol has a snapshot: each global state expanded once; ${REDUCTIONS[result.reduction]}): ${result.states} states, ${result.transitions} transitions, ${result.executions} executions in ${(elapsedMs / 1000).toFixed(1)} s (${statesPerSecond(result, elapsedMs)} states/s)`
      : `search: stateless (a protocol without a snapshot: schedules replayed; ${REDUCTIONS[result.reduction]}): ${result.states} states, ${result.executions} executions`
  return [
    ...(pct ? [] : [search]),
    `schedules: ${result.schedules} (${exhausted}); cut by the depth bound ${options.depth ?? 100}: ${result.cutByDepth}`,
    `distinct terminal states: ${result.terminalStates}; steps executed: ${result.steps}; faults injected at most: ${faults}`,
  ].join('\n')
}

/** How `describe` names the partial-order reduction that ran. */
const REDUCTIONS: Record<ExploreResult['reduction'], string> = {
  dpor: 'source-set DPOR with sleep sets',
  sleep: 'sleep sets',
  none: 'no reduction',
}

/** States expanded per second of wall time (stateful search; 0 for the stateless one). */
function statesPerSecond(result: ExploreResult, elapsedMs: number): number {
  return result.mode === 'stateful'
    ? Math.round((result.states / Math.max(elapsedMs, 1)) * 1000)
    : 0
}

export type { CheckSpec }
