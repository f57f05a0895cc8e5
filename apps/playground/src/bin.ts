import { main } from './cli.js'

// A closed pipe (`sd run x | head`) is not an error of ours.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0)
  throw error
})

process.exitCode = main(process.argv.slice(2), {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  columns: process.stdout.isTTY ? process.stdout.columns : undefined,
  errColumns: process.stderr.isTTY ? process.stderr.columns : undefined,
})
