import { writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import type { NodeId } from '@sd/transport'
import { renderDiagram } from './diagram.js'
import { messageCounts, summarize } from './report.js'
import type { Scenario } from './scenario.js'
import { scenarios } from './scenarios/index.js'

export interface Io {
  out(text: string): void
  err(text: string): void
}

const USAGE = `usage:
  sd list                         list the scenarios
  sd run <scenario> [options]     run one scenario in the simulator
  sd tour                         run every scenario with its defaults (the demo)

options of run:
  --n N          number of nodes (each scenario has its range)
  --seed S       integer seed; the same seed replays the same run (default 1)
  --crash IDS    comma-separated node ids to crash (each scenario says when)
  --json         print one JSON summary instead of the diagram
  --trace FILE   write the full trace (JSON) to FILE
  --rows N       rows of the diagram shown at most (default 400)`

class UsageError extends Error {}

/** Runs the `sd` command; returns the exit code (0 ok, 1 failure, 2 bad arguments). */
export function main(argv: readonly string[], io: Io): number {
  try {
    const [command, ...rest] = argv
    switch (command) {
      case 'list':
        if (rest.length > 0) throw new UsageError(`list takes no arguments`)
        return list(io)
      case 'run':
        return run(rest, io)
      case 'tour':
        return tour(rest, io)
      case 'help':
      case '--help':
      case '-h':
        io.out(USAGE)
        return 0
      case undefined:
        throw new UsageError('missing command')
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}`)
    }
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      io.err(`sd: ${(error as Error).message}\n${USAGE}`)
      return 2
    }
    io.err(`sd: ${error instanceof Error ? error.message : String(error)}`)
    return 1
  }
}

function list(io: Io): number {
  const width = Math.max(...scenarios.map((s) => s.name.length))
  for (const s of scenarios)
    io.out(`${s.name.padEnd(width)}  ${s.title} (n ${s.minN}..${s.maxN}, default ${s.defaultN})`)
  return 0
}

function run(args: readonly string[], io: Io): number {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      n: { type: 'string' },
      seed: { type: 'string' },
      crash: { type: 'string' },
      json: { type: 'boolean' },
      trace: { type: 'string' },
      rows: { type: 'string' },
    },
  })
  if (positionals.length !== 1)
    throw new UsageError(
      positionals.length
        ? `run takes one scenario, got ${positionals.join(' ')}`
        : 'run needs a scenario name (see sd list)',
    )
  const scenario = find(positionals[0]!)
  const n = values.n === undefined ? scenario.defaultN : integer('--n', values.n)
  if (n < scenario.minN || n > scenario.maxN)
    throw new UsageError(
      `--n for ${scenario.name} must be in ${scenario.minN}..${scenario.maxN}, got ${n}`,
    )
  const seed = values.seed === undefined ? 1 : integer('--seed', values.seed)
  const crash = values.crash === undefined ? [] : parseIds(values.crash, n)
  const rows = values.rows === undefined ? 400 : integer('--rows', values.rows)

  const outcome = scenario.run({ n, seed, crash })
  const summary = summarize(scenario.name, seed, outcome)
  if (values.trace !== undefined)
    writeFileSync(values.trace, `${JSON.stringify(outcome.net.traceDocument())}\n`)
  if (values.json) {
    io.out(JSON.stringify(summary))
    return 0
  }
  io.out(
    `${scenario.name}: ${scenario.title} — n=${n}, seed=${seed}${crash.length ? `, crash=${crash.join(',')}` : ''}\n`,
  )
  io.out(
    renderDiagram(outcome.net.trace, {
      nodes: outcome.net.nodeIds,
      annotate: outcome.annotate,
      maxRows: rows,
    }),
  )
  io.out('')
  io.out(messageCounts(summary))
  for (const line of outcome.summary ?? []) io.out(line)
  io.out(
    summary.violations.length
      ? `VIOLATIONS:\n${summary.violations.map((v) => `  - ${v}`).join('\n')}`
      : 'invariants: all held',
  )
  if (values.trace !== undefined) io.out(`trace written to ${values.trace}`)
  return 0
}

function tour(args: readonly string[], io: Io): number {
  if (args.length > 0) throw new UsageError('tour takes no arguments')
  for (const scenario of scenarios) {
    io.out(`\n=== ${scenario.name} ===`)
    const code = run([scenario.name, '--rows', '60'], io)
    if (code !== 0) return code
  }
  return 0
}

function find(name: string): Scenario {
  const scenario = scenarios.find((s) => s.name === name)
  if (!scenario)
    throw new UsageError(
      `unknown scenario ${JSON.stringify(name)}; known: ${scenarios.map((s) => s.name).join(', ')}`,
    )
  return scenario
}

function integer(flag: string, text: string): number {
  if (!/^-?\d+$/.test(text))
    throw new UsageError(`${flag} takes an integer, got ${JSON.stringify(text)}`)
  return Number(text)
}

function parseIds(text: string, n: number): NodeId[] {
  return text.split(',').map((part) => {
    const id = integer('--crash', part.trim())
    if (id < 1 || id > n) throw new UsageError(`--crash: node ${id} is not in 1..${n}`)
    return id
  })
}

function isParseArgsError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')
}
