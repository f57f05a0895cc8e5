/**
 * `pnpm cluster [-- options]`: a real cluster with chaos (see --help and README.md).
 * Exit status: 0 every check held, 1 a safety violation or a failed node, 2 a usage error, 3 the
 * cluster could not run.
 */
import { parseArgs, USAGE, UsageError } from './args.js'
import { ClusterError, runCluster } from './run.js'
import { formatSummary } from './summary.js'

// A closed pipe (`pnpm cluster | head`) is not an error of ours.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error
})

async function main(argv: string[]): Promise<number> {
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
    })
    if (options.json) process.stdout.write(`${JSON.stringify(summary)}\n`)
    else process.stdout.write(`\n${formatSummary(summary)}\n`)
    return summary.ok ? 0 : 1
  } catch (error) {
    // Everything it started is already cleaned up (runCluster's finally).
    const text =
      error instanceof ClusterError ? error.message : String((error as Error)?.stack ?? error)
    process.stderr.write(`cluster: ${text}\n`)
    return 3
  }
}

process.exitCode = await main(process.argv.slice(2))
