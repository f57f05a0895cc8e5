/**
 * The Jepsen-style test in its short form: `pnpm cluster -- jepsen` as a user starts it, two
 * rounds of a fresh 3-node cluster in network namespaces while the nemesis kills (SIGKILL) and
 * restarts nodes, pauses the leader past its leases (SIGSTOP / SIGCONT), cuts the leader off with
 * nft, and steps a node's wall clock. Judged from its --json report and from the files it keeps:
 * every operation with invocation and completion times, register = acknowledged increments, and
 * each round's trace judged again by `check` (no overlapping valid leases, tokens never backwards,
 * one leader per term, no leader on a minority side). Nothing is left behind: no process, no
 * namespace. Bounded by the rounds' lengths; nothing asserts on wall time.
 *
 * Needs root, ip and nft: skipped with a notice without them, failed under SD_REQUIRE_ALL=1.
 * The long form (not in the suite): pnpm cluster -- jepsen --rounds 10 --seconds 30 --nemesis all
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { Operation } from '../src/history.js'
import type { JepsenReport } from '../src/jepsen.js'
import {
  namespaceRunsUnavailable,
  namespacesOf,
  processesNaming,
  runCli,
  runCliSync,
} from './support/cli.js'

const unavailable = namespaceRunsUnavailable('the Jepsen-style test')

describe.skipIf(unavailable !== undefined)('the Jepsen-style test, short form', () => {
  const out = mkdtempSync(join(tmpdir(), 'sd-jepsen-'))
  afterAll(() => rmSync(out, { recursive: true, force: true }))

  it('two rounds under kills, pauses, partitions and clock steps: every check holds', async () => {
    const nemesis = 'kill-leader,kill-holder,kill-random,pause-leader,partition,clock-step'
    const o = await runCli([
      'jepsen',
      '--rounds',
      '2',
      '--seconds',
      '20',
      '--n',
      '3',
      '--fault-ms',
      '1500',
      '--step-ms',
      '1000',
      '--nemesis',
      nemesis,
      '--seed',
      '7',
      '--out',
      out,
      '--netns',
      '--json',
    ])
    if (o.code !== 0) console.error(o.stderr)
    const report = JSON.parse(o.stdout.trim().split('\n').at(-1)!) as JepsenReport
    console.log(
      `jepsen short form: ${report.totals.operations} operations, ${report.totals.faults} faults, ${report.totals.failovers} failovers, ${report.totals.lockRecoveries} lock recoveries, ${report.totals.violations} violations`,
    )
    for (const r of report.rounds) {
      expect(r.violations, `round ${r.round} (seed ${r.seed})`).toEqual([])
      expect(r.traceViolations, `round ${r.round} (seed ${r.seed}), judged from its trace`).toEqual(
        [],
      )
      expect(r.errors, `round ${r.round} (seed ${r.seed})`).toEqual([])
      // The history, through kills, pauses, partitions and clock steps, per model.
      expect(r.linearizability.map((v) => [v.model, v.verdict])).toEqual([
        ['register', 'linearizable'],
        ['lock', 'linearizable'],
      ])
      expect(r.mode).toBe('netns')
      expect(r.counter).toBe(r.acknowledged)
      // A write the counter acknowledged can lack its completion in the history (its node was
      // killed before it recorded the answer): then it is indeterminate, never missing.
      expect(r.operations.okByKind.write).toBeLessThanOrEqual(r.acknowledged)
      expect(r.acknowledged).toBeLessThanOrEqual(
        r.operations.okByKind.write + r.operations.indeterminateWrites,
      )
    }
    expect(o.code).toBe(0)
    expect(report.ok).toBe(true)
    // The nemesis hit: several kinds of fault, and the leader was replaced at least once.
    const kinds = new Set(report.rounds.flatMap((r) => Object.keys(r.faults)))
    expect(kinds.size).toBeGreaterThanOrEqual(3)
    for (const k of kinds) expect(nemesis.split(',')).toContain(k)
    expect(report.totals.failovers).toBeGreaterThanOrEqual(1)

    // Every operation has its invocation, and a completion unless it was left indeterminate.
    const history = readFileSync(join(out, 'round-1.history.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Operation)
    expect(history.length).toBe(report.rounds[0]!.operations.total)
    for (const op of history) {
      expect(['acquire', 'read', 'write', 'release']).toContain(op.f)
      if (op.outcome === 'info') expect(op.completedAt).toBeUndefined()
      else expect(op.completedAt!).toBeGreaterThanOrEqual(op.invokedAt)
    }
    // And judged again from the file by `check-history`.
    const judged = runCliSync(['check-history', join(out, 'round-1.history.jsonl')])
    expect(judged.stdout).toContain('lock: linearizable')
    expect(judged.status).toBe(0)
    // The trace file is judged the same way by `check`.
    const again = runCliSync(['check', join(out, 'round-2.trace.json')])
    expect(again.stdout).toContain('every global check held')
    expect(again.status).toBe(0)

    // Nothing left behind: no namespace of the run, no node process, no run directory.
    expect(namespacesOf(o.pid)).toEqual([])
    const dirs = [...o.stderr.matchAll(/run directory (\S+)/g)].map((m) => m[1]!)
    expect(dirs.length).toBe(2)
    for (const dir of dirs) {
      expect(existsSync(dir)).toBe(false)
      expect(processesNaming(dir)).toEqual([])
    }
  })
})
