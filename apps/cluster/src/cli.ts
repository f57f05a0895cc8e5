/**
 * `pnpm cluster [-- options]`: a real cluster with chaos (see --help and README.md).
 * Exit status: 0 every check held, 1 a safety violation or a failed node, 2 a usage error, 3 the
 * cluster could not run.
 */
import { readFileSync } from 'node:fs'
import type { TraceDocument } from '@sd/transport'
import { parseArgs, USAGE, UsageError } from './args.js'
import { checkHistoryFile } from './check-history.js'
import { judgeTrace } from './checks.js'
import {
  formatJepsen,
  JEPSEN_USAGE,
  type JepsenOptions,
  parseJepsenArgs,
  runJepsen,
} from './jepsen.js'
import { ClusterError, runCluster } from './run.js'
import { formatSummary } from './summary/format.js'

// A closed pipe (`pnpm cluster | head`) is not an error of ours.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error
})

async function main(argv: string[]): Promise<number> {
  const args = argv.filter((a) => a !== '--')
  if (args[0] === 'jepsen') return jepsen(args.slice(1))
  if (args[0] === 'check') return check(args.slice(1))
  if (args[0] === 'check-history') return checkHistoryCommand(args.slice(1))
  let options: ReturnType<typeof parseArgs>
  try {
    options = parseArgs(argv)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    process.stderr.write(`${error.message}\n\n${USAGE}\n`)
    return 2
  }
  if (options.help) {
    process.stdout.write(`${USAGE}\n`)
    return 0
  }
  // With --json, stdout carries the summary alone; progress goes to stderr.
  const tty = !options.json && !options.plain && process.stdout.isTTY === true
  const progress = options.json ? process.stderr : process.stdout
  try {
    const summary = await runCluster(options, {
      write: (text) => process.stdout.write(text),
      line: (text) => progress.write(`${text}\n`),
      tty,
      columns: () => process.stdout.columns,
      // Ctrl-C: what ran until then, said to be partial (the exit handler then cleans up).
      interrupted: (summary) => {
        if (summary === undefined) return
        process.stdout.write(
          options.json ? `${JSON.stringify(summary)}\n` : `\n${formatSummary(summary)}\n`,
        )
      },
    })
    if (options.json) process.stdout.write(`${JSON.stringify(summary)}\n`)
    else process.stdout.write(`\n${formatSummary(summary)}\n`)
    return summary.ok ? 0 : 1
  } catch (error) {
    // Everything it started is already cleaned up (runCluster's finally).
    const text =
      error instanceof ClusterError
        ? error.message
        : String((error instanceof Error ? error.stack : undefined) ?? error)
    process.stderr.write(`cluster: ${text}\n`)
    return 3
  }
}

/** `jepsen [options]`: fresh clusters under a random nemesis, every round judged. */
async function jepsen(argv: string[]): Promise<number> {
  let o: JepsenOptions
  try {
    if (argv.includes('--help') || argv.includes('-h')) {
      process.stdout.write(`${JEPSEN_USAGE}\n`)
      return 0
    }
    o = parseJepsenArgs(argv)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    process.stderr.write(`${error.message}\n\n${JEPSEN_USAGE}\n`)
    return 2
  }
  const progress = o.run.json ? process.stderr : process.stdout
  try {
    const report = await runJepsen(o, {
      write: () => {},
      line: (text) => progress.write(`${text}\n`),
      tty: false,
    })
    if (o.run.json) process.stdout.write(`${JSON.stringify(report)}\n`)
    else process.stdout.write(`\n${formatJepsen(report)}\n`)
    return report.ok ? 0 : 1
  } catch (error) {
    const text =
      error instanceof ClusterError
        ? error.message
        : String((error instanceof Error ? error.stack : undefined) ?? error)
    process.stderr.write(`cluster jepsen: ${text}\n`)
    return 3
  }
}

/** `check FILE`: the global checks of a trace written with --trace. */
function check(argv: string[]): number {
  const file = argv[0]
  if (file === undefined || argv.length > 1 || file.startsWith('--')) {
    process.stderr.write('usage: pnpm cluster -- check TRACE.json\n')
    return 2
  }
  let doc: TraceDocument
  try {
    doc = JSON.parse(readFileSync(file, 'utf8')) as TraceDocument
    if (doc?.format !== 'sd-trace' || !Array.isArray(doc.events) || !Array.isArray(doc.nodes)) {
      throw new Error('not an sd-trace document')
    }
  } catch (error) {
    process.stderr.write(
      `cluster check: cannot read ${file}: ${error instanceof Error ? error.message : String(error)}\n`,
    )
    return 2
  }
  const violations = judgeTrace(doc)
  process.stdout.write(
    violations.length === 0
      ? `${file}: every global check held (${doc.events.length} trace entries)\n`
      : `${file}: ${violations.length} violation(s)\n${violations.map((v) => `  - ${v}`).join('\n')}\n`,
  )
  return violations.length === 0 ? 0 : 1
}

/**
 * `check-history FILE [--json] [--trace TRACE [--out FILE]]`: a `--history` file judged for
 * linearizability, per model; with the run's trace, on its clock, and written into a copy of it.
 */
function checkHistoryCommand(argv: string[]): number {
  const rest = [...argv]
  const take = (flag: string) => {
    const i = rest.indexOf(flag)
    return i < 0 ? undefined : rest.splice(i, 2)[1]
  }
  const json = rest.includes('--json')
  const trace = take('--trace')
  const out = take('--out')
  const files = rest.filter((a) => a !== '--json')
  if (
    files.length !== 1 ||
    files[0]!.startsWith('--') ||
    (out !== undefined && trace === undefined)
  ) {
    process.stderr.write(
      'usage: pnpm cluster -- check-history HISTORY.jsonl [--json] [--trace TRACE.json [--out FILE]]\n',
    )
    return 2
  }
  const r = checkHistoryFile(files[0]!, json, trace === undefined ? undefined : { trace, out })
  ;(r.code === 2 ? process.stderr : process.stdout).write(r.text)
  return r.code
}

process.exitCode = await main(process.argv.slice(2))
