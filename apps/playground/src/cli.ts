import { parseArgs } from 'node:util'
import type { TraceEvent } from '@sd/transport'
import {
  defaults,
  faultSupport,
  joinNegativeValues,
  parseRun,
  parseWidth,
  type RunRequest,
} from './args.js'
import { runCheck } from './check/command.js'
import { renderDiagram } from './diagram.js'
import { faultFlag } from './fault-plan.js'
import { faultLines } from './faults.js'
import { LEGEND_HINT, legendText } from './legend.js'
import { nodesToDraw } from './node-fit.js'
import { runNtp } from './ntp/command.js'
import { protosIn, showsProto } from './proto-filter.js'
import { failed, invariantLines, livenessLines, messageCounts, summarize } from './report.js'
import { scenarios } from './scenarios/index.js'
import { nextSteps, tourScenarios } from './tour.js'
import { writeTraceFile } from './trace-file.js'
import { scenarioHelp, USAGE, UsageError, usageErrorText } from './usage.js'
import { version } from './version.js'
import { fitToWidth, wrapToWidth } from './width.js'

export interface Io {
  out(text: string): void
  err(text: string): void
  /** Width of stdout when it is a terminal (undefined otherwise: the diagram then takes 100). */
  columns?: number | undefined
  /** Width of stderr when it is a terminal (the diagram goes there with `--trace -`). */
  errColumns?: number | undefined
}

/** Exit codes: scripts and CI rely on them. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const

/** Runs the `sd` command; returns the exit code (0 ok, 1 violations or failure, 2 bad arguments). */
export function main(argv: readonly string[], io: Io): number {
  try {
    const [command, ...rest] = argv
    switch (command) {
      case 'list':
        noArguments(command, rest)
        return list(io)
      case 'run':
        return run(rest, io)
      case 'tour':
        return tour(rest, io)
      case 'check':
        return runCheck(rest, io)
      case 'ntp':
        throw new Error('sd ntp works on real sockets, asynchronously: call mainAsync')
      case 'legend':
      case '--legend':
        noArguments(command, rest)
        io.out(legendText())
        return EXIT.ok
      case 'version':
      case '--version':
        noArguments(command, rest)
        io.out(`sd ${version()}`)
        return EXIT.ok
      case 'help':
      case '--help':
      case '-h':
        io.out(USAGE)
        return EXIT.ok
      case undefined:
        throw new UsageError('missing command')
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}`)
    }
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      io.err(usageErrorText(error.message, argv[0]))
      return EXIT.usage
    }
    io.err(`sd: ${error instanceof Error ? error.message : String(error)}`)
    return EXIT.failed
  }
}

/**
 * `main` for every command, `sd ntp` included (which serves or queries on real sockets, so it
 * is asynchronous); `signal` stops `sd ntp serve` and gives `sd ntp query` up.
 */
export async function mainAsync(
  argv: readonly string[],
  io: Io,
  signal?: AbortSignal,
): Promise<number> {
  return argv[0] === 'ntp' ? runNtp(argv.slice(1), io, signal) : main(argv, io)
}

function noArguments(command: string, rest: readonly string[]): void {
  if (rest.length > 0) throw new UsageError(`${command} takes no arguments`)
}

function list(io: Io): number {
  const width = Math.max(...scenarios.map((s) => s.name.length))
  for (const s of scenarios)
    io.out(`${s.name.padEnd(width)}  ${s.title} (n ${s.minN}..${s.maxN}, default ${s.defaultN})`)
  return EXIT.ok
}

function run(args: readonly string[], io: Io): number {
  const request = parseRun(args)
  if ('help' in request) {
    const scenario = request.scenario
    io.out(scenario ? scenarioHelp(scenario, (kind) => faultSupport(scenario, kind)) : USAGE)
    return EXIT.ok
  }
  return execute(request, io).code
}

/** Runs a checked request; exit code 1 when an invariant was violated. */
function execute(
  request: RunRequest,
  io: Io,
): { code: number; expectedViolations: readonly string[] } {
  const { scenario, n, seed, crash, faults } = request
  const outcome = scenario.run({ n, seed, crash, faults })
  if (request.proto !== undefined) checkProto(request.proto, outcome.net.trace)
  const summary = summarize(scenario.name, seed, outcome)
  const code = failed(summary) ? EXIT.failed : EXIT.ok
  const traceJson = `${JSON.stringify(outcome.net.traceDocument())}`
  if (request.trace !== undefined && request.trace !== '-') writeTraceFile(request.trace, traceJson)
  const done = { code, expectedViolations: summary.expectedViolations }
  if (request.json) {
    io.out(JSON.stringify(summary))
    return done
  }
  // With `--trace -` stdout carries the trace alone; everything for humans goes to stderr.
  const toStdout = request.trace !== '-'
  const width = request.width ?? (toStdout ? io.columns : io.errColumns) ?? 100
  // Every line for humans fits the width: prose is wrapped between words, rows that fit are kept.
  const show = (text: string) => {
    const fitted = fitToWidth(text, width)
    if (toStdout) io.out(fitted)
    else io.err(fitted)
  }
  if (!toStdout) io.out(traceJson)
  show(
    `${scenario.name}: ${scenario.title} — n=${n}, seed=${seed}${crash.length ? `, crash=${crash.join(',')}` : ''}${faults.map((f) => `, ${faultFlag(f).slice(2)}`).join('')}`,
  )
  if (scenario.deterministic)
    for (const line of wrapToWidth(`seed: changes nothing here, ${scenario.deterministic}`, width))
      show(line)
  for (const line of faultLines(summary.faults, crash, faults)) show(line)
  show('')
  const fit = nodesToDraw(outcome.net.nodeIds, outcome.net.trace, width)
  show(
    renderDiagram(outcome.net.trace, {
      nodes: fit.drawn,
      annotate: outcome.annotate,
      story: outcome.story,
      maxRows: request.rows,
      width,
      proto: request.proto,
    }),
  )
  if (fit.note !== undefined) show(fit.note)
  show(request.legend ? `\n${legendText()}` : LEGEND_HINT)
  show('')
  show(messageCounts(summary))
  for (const line of outcome.summary ?? []) show(line)
  for (const line of invariantLines(summary)) show(line)
  for (const line of livenessLines(summary)) show(line)
  if (request.trace !== undefined && toStdout) show(`trace written to ${request.trace}`)
  return done
}

/** The main scenario of every package (or every scenario, `--all`); 1 if any reported a violation. */
function tour(args: readonly string[], io: Io): number {
  const { values } = parseArgs({
    args: joinNegativeValues(args, { width: { type: 'string' } }),
    strict: true,
    options: { width: { type: 'string' }, all: { type: 'boolean' } },
  })
  const width = parseWidth(values.width)
  const stops = values.all
    ? scenarios.map((scenario) => ({ scenario, title: scenario.title }))
    : tourScenarios(scenarios)
  const failed: string[] = []
  const intended: string[] = []
  for (const { scenario, title } of stops) {
    io.out(`\n${fitToWidth(`=== ${scenario.name} === ${title}`, width ?? io.columns ?? 100)}`)
    const result = execute({ ...defaults(scenario), rows: 60, width }, io)
    if (result.code !== EXIT.ok) failed.push(scenario.name)
    if (result.expectedViolations.length) intended.push(scenario.name)
  }
  const shown = intended.length
    ? ` (${intended.join(', ')}: the expected violation it is built to show)`
    : ''
  const verdict = failed.length
    ? `tour: violations in ${failed.join(', ')}`
    : `tour: ${stops.length} scenarios, every invariant and liveness check held${shown}`
  io.out(`\n${fitToWidth(verdict, width ?? io.columns ?? 100)}`)
  if (!values.all) io.out(`\n${nextSteps(width ?? io.columns ?? 100)}`)
  return failed.length ? EXIT.failed : EXIT.ok
}

/** A filter that matches no entry would draw an empty diagram: say which names there are. */
function checkProto(name: string, trace: readonly TraceEvent[]): void {
  if (trace.some((e) => 'proto' in e && showsProto(e, name))) return
  const known = protosIn(trace)
  throw new UsageError(
    `--proto ${name}: no entry of this run belongs to a protocol of that name; ${
      known.length ? `protocols in this run: ${known.join(', ')}` : 'this run composes no protocols'
    }`,
  )
}

/** node:util's parseArgs throws TypeErrors with an `ERR_PARSE_ARGS_*` code. */
function isParseArgsError(error: unknown): error is Error {
  return (
    error instanceof Error &&
    'code' in error &&
    typeof error.code === 'string' &&
    error.code.startsWith('ERR_PARSE_ARGS')
  )
}
