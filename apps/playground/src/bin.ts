import { type Io, main, mainAsync } from './cli.js'

// A closed pipe (`sd run x | head`) is not an error of ours.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0)
  throw error
})

const argv = process.argv.slice(2)
const io: Io = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  columns: process.stdout.isTTY ? process.stdout.columns : undefined,
  errColumns: process.stderr.isTTY ? process.stderr.columns : undefined,
}

if (argv[0] === 'ntp') {
  // Only `sd ntp` takes SIGINT and SIGTERM over, to close its socket and exit 0; the other
  // commands keep the default (a long tour stops at once).
  const stop = new AbortController()
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => stop.abort(new Error(`${signal} received`)))
  process.exitCode = await mainAsync(argv, io, stop.signal)
} else {
  process.exitCode = main(argv, io)
}
