#!/usr/bin/env node
// Reads a test log (vitest output of every package, as turbo prints it) from stdin and prints
// the tasks turbo reported as failed, if any (a failed lint or typecheck has no test counts), then
// one closing line with the totals: "N passed, N failed, N skipped".
import { readFileSync } from 'node:fs'

const ansi = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g')
const log = readFileSync(0, 'utf8').replace(ansi, '')
const totals = { passed: 0, failed: 0, skipped: 0 }
const failedTasks = new Set()
for (const line of log.split('\n')) {
  const failed = line.match(/^\s*Failed:\s+(\S.*)$/)
  if (failed) for (const task of failed[1].split(',')) failedTasks.add(task.trim())
  const tests = line.match(/\bTests\s+(.*)$/)
  if (!tests) continue
  for (const [, count, kind] of tests[1].matchAll(/(\d+) (passed|failed|skipped)/g))
    totals[kind] += Number(count)
}
if (failedTasks.size > 0) console.log(`failed tasks: ${[...failedTasks].join(', ')}`)
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`)
