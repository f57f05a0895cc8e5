#!/usr/bin/env node
// `pnpm test`: runs `turbo <args>`, passing its output through as it comes, then prints the tasks
// turbo reported as failed, if any (a failed lint or typecheck has no test counts), vitest's
// FAIL lines again with the lines that follow each (a log's reader often sees only its tail), and one
// closing line with the totals, alone on its line: "N passed, N failed, N skipped". Exits with
// turbo's status.
//
// Colours: when our output is a terminal, turbo is asked for colour (it sees a pipe, ours); when
// it is not (a file, a pipe, CI), NO_COLOR=1 and FORCE_COLOR=0 reach every task (vitest colours
// whenever TERM is set, terminal or not; attw's table reads FORCE_COLOR only) and what still
// carries escape codes is stripped, so a log holds none. A NO_COLOR or FORCE_COLOR of the caller
// decides instead.
import { spawn } from 'node:child_process'

const ansi = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*[A-Za-z]`, 'g')
const totals = { passed: 0, failed: 0, skipped: 0 }
const failedTasks = new Set()
/** vitest's FAIL lines, each with the few lines of its task that follow it (the error). */
const failures = []
const FAILURE_CONTEXT = 12
const FAILURES_KEPT = 30
/** Task prefix ("@sd/mutex:test: ") → the failure its next lines belong to, while it takes more. */
const following = new Map()

function noteFailure(line) {
  const prefixed = line.match(/^(\S+:\S+: )(.*)$/)
  const prefix = prefixed ? prefixed[1] : ''
  const text = prefixed ? prefixed[2] : line
  if (/^\s*FAIL\s/.test(text)) {
    if (failures.length >= FAILURES_KEPT) return
    failures.push([line])
    following.set(prefix, failures.length - 1)
    return
  }
  const at = following.get(prefix)
  if (at === undefined || text.trim() === '') return
  const kept = failures[at]
  kept.push(line)
  if (kept.length > FAILURE_CONTEXT) following.delete(prefix)
}

/** Reads one line of the log (escape codes already removed). */
function tally(line) {
  noteFailure(line)
  const failed = line.match(/^\s*Failed:\s+(\S.*)$/)
  if (failed) for (const task of failed[1].split(',')) failedTasks.add(task.trim())
  const tests = line.match(/\bTests\s+(.*)$/)
  if (!tests) return
  for (const [, count, kind] of tests[1].matchAll(/(\d+) (passed|failed|skipped)/g))
    totals[kind] += Number(count)
}

/**
 * Passes a stream through to `out`, feeding its complete lines to tally. Without colour, lines
 * go out whole and stripped of escape codes: a task's log replayed from turbo's cache keeps the
 * colours of the run that stored it.
 */
function follow(stream, out, colour) {
  let partial = ''
  stream.on('data', (chunk) => {
    if (colour) out.write(chunk)
    const lines = (partial + chunk.toString('utf8')).split('\n')
    partial = lines.pop() ?? ''
    for (const line of lines) {
      const plain = line.replace(ansi, '')
      if (!colour) out.write(`${plain}\n`)
      tally(plain)
    }
  })
  return new Promise((resolve) =>
    stream.on('close', () => {
      const plain = partial.replace(ansi, '')
      if (!colour && plain) out.write(`${plain}\n`)
      if (plain) tally(plain)
      resolve()
    }),
  )
}

const env = { ...process.env }
const args = process.argv.slice(2)
const colour =
  'NO_COLOR' in env
    ? false
    : 'FORCE_COLOR' in env
      ? env.FORCE_COLOR !== '0'
      : !!process.stdout.isTTY
if (colour) args.push('--color')
else {
  env.NO_COLOR = '1'
  env.FORCE_COLOR = '0' // for the tools that read only FORCE_COLOR (attw's table)
}

const child = spawn('turbo', args, { env, stdio: ['inherit', 'pipe', 'pipe'] })
// Ctrl-C reaches turbo too (same process group): wait for it to stop its tasks, then report.
process.on('SIGINT', () => {})
process.on('SIGTERM', () => child.kill('SIGTERM'))
const [status] = await Promise.all([
  new Promise((resolve) => {
    child.on('error', (error) => {
      console.error(`cannot run turbo: ${error.message}`)
      resolve(1)
    })
    child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)))
  }),
  follow(child.stdout, process.stdout, colour),
  follow(child.stderr, process.stderr, colour),
])
if (failures.length > 0) {
  console.log('failed tests, each with what followed it:')
  for (const lines of failures) console.log(lines.join('\n'))
}
if (failedTasks.size > 0) console.log(`failed tasks: ${[...failedTasks].join(', ')}`)
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`)
process.exitCode = status
