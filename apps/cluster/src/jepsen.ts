/**
 * `pnpm cluster -- jepsen`: the Jepsen-style test. Each round is a fresh cluster of real
 * processes (a run of the cluster app) contending for the lock and doing read-modify-write on the
 * fenced register, while a nemesis plays the faults of `--nemesis` in a seeded random order, again
 * and again: SIGKILL and restart of the coordinator, the holder and random nodes, SIGSTOP past the
 * leases and SIGCONT, nft partitions between network namespaces, wall clock steps. Every operation
 * is recorded with its invocation and completion times; each round is judged afterwards by the
 * summary (register = acknowledged increments, global lease and token checks, one leader per
 * term, no leader on a minority side). With `--out DIR`, each round's trace, history and summary
 * are kept, and the trace is judged a second time from the file (`check`).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { TraceDocument } from '@sd/transport'
import { type ChaosKind, type Options, parseArgs, parseChaos, UsageError } from './args.js'
import { judgeTrace } from './checks.js'
import { type RunIo, runCluster } from './run.js'
import { describeOperation } from './summary/linearizability.js'
import type { Summary } from './summary.js'

export const JEPSEN_USAGE = `pnpm cluster -- jepsen [options]

The Jepsen-style test: ROUNDS fresh clusters of real processes, each run for SECONDS while a
nemesis plays the faults of --nemesis in a seeded random order, again and again; every operation
recorded with invocation and completion times; every round judged afterwards (register =
acknowledged increments, no two valid leases overlapping, tokens never backwards across nodes, one
leader per term, no leader on a minority side). Partitions and loss need root, ip and nft
(network namespaces); on loopback they are skipped with a notice.

Options:
  --rounds R        fresh clusters, one after the other, 1..100 (default 10)
  --seconds S       length of each round's workload, 5..600 (default 30)
  --nemesis LIST    faults, comma-separated, or all (default): kill-leader, kill-holder,
                    kill-random, pause-leader, pause-holder, clock-step, loss, partition
  --n N             nodes, 3..9 (default 5)
  --fault-ms MS     how long each fault lasts, 500..6000 (default 3000)
  --step-ms MS      how far clock-step steps a wall clock, 1..60000 (default 2000)
  --loss P          percent of packets lost during the loss fault, 1..50 (default 10)
  --seed N          seed of the first round (round r uses N + r - 1; default: random)
  --out DIR         keep each round's trace, history and summary in DIR (round-R.*)
  --netns | --loopback
  --json            print only the report, as one JSON object
  --help            this text

A short trial:   pnpm cluster -- jepsen --rounds 2 --seconds 15
The long form:   pnpm cluster -- jepsen --rounds 10 --seconds 30 --nemesis all

Exit status: 0 when every round held every check, 1 when one did not, 2 on a usage error, 3 when
a cluster could not run.`

export interface JepsenOptions {
  rounds: number
  nemesis: ChaosKind[]
  out: string | undefined
  /** What each round runs with (its seed is this one's plus the round's number minus one). */
  run: Options
}

/** Parses the arguments after `jepsen`; throws UsageError. */
export function parseJepsenArgs(
  argv: readonly string[],
  random: () => number = Math.random,
): JepsenOptions {
  let rounds = 10
  let nemesis = parseChaos('all')
  let out: string | undefined
  const rest: string[] = ['--n', '5', '--seconds', '30', '--fault-ms', '3000']
  const args = argv.filter((a) => a !== '--')
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const [name, inline] = arg.startsWith('--') && arg.includes('=') ? arg.split(/=(.*)/) : [arg]
    const value = () => {
      const v = inline ?? args[++i]
      if (v === undefined) throw new UsageError(`${name} needs a value`)
      return v
    }
    if (name === '--rounds') {
      const v = value()
      if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 100) {
        throw new UsageError(`--rounds must be in 1..100, got ${JSON.stringify(v)}`)
      }
      rounds = Number(v)
    } else if (name === '--nemesis') nemesis = parseChaos(value())
    else if (name === '--out') out = value()
    else if (
      ['--chaos', '--shuffle', '--trace', '--history', '--keep', '--plain'].includes(name!)
    ) {
      throw new UsageError(`${name} is not an option of jepsen (see jepsen --help)`)
    } else rest.push(arg)
  }
  if (nemesis.length === 0) throw new UsageError('--nemesis needs at least one fault')
  const run = parseArgs(rest, random)
  return { rounds, nemesis, out, run: { ...run, chaos: nemesis, shuffle: true, rounds: 0 } }
}

export interface RoundReport {
  round: number
  seed: number
  ok: boolean
  mode: Summary['mode']
  operations: Summary['operations']
  counter: number
  acknowledged: number
  fencingRejections: number
  /** Faults played (not skipped), by kind. */
  faults: Partial<Record<ChaosKind, number>>
  failovers: number
  lockRecoveries: number
  /** The history judged per model (register, lock), with a failing model's sub-history. */
  linearizability: Summary['linearizability']
  violations: string[]
  errors: string[]
  /** With --out: what judging the trace file again found (it must agree). */
  traceViolations?: string[]
}

export interface JepsenReport {
  ok: boolean
  rounds: RoundReport[]
  totals: {
    operations: number
    okOperations: number
    faults: number
    failovers: number
    lockRecoveries: number
    violations: number
    errors: number
  }
}

export function roundReport(
  round: number,
  seed: number,
  s: Summary,
  traceViolations?: string[],
): RoundReport {
  const faults: Partial<Record<ChaosKind, number>> = {}
  for (const c of s.chaos) if (c.skipped === undefined) faults[c.kind] = (faults[c.kind] ?? 0) + 1
  return {
    round,
    seed,
    ok: s.ok && (traceViolations === undefined || traceViolations.length === 0),
    mode: s.mode,
    operations: s.operations,
    counter: s.counter,
    acknowledged: s.acknowledged,
    fencingRejections: s.fencingRejections,
    faults,
    failovers: s.failovers.length,
    lockRecoveries: s.lockRecoveryMs.length,
    linearizability: s.linearizability,
    violations: s.violations,
    errors: s.errors,
    ...(traceViolations === undefined ? {} : { traceViolations }),
  }
}

export function totalsOf(rounds: readonly RoundReport[]): JepsenReport['totals'] {
  const sum = (f: (r: RoundReport) => number) => rounds.reduce((a, r) => a + f(r), 0)
  return {
    operations: sum((r) => r.operations.total),
    okOperations: sum((r) => r.operations.ok),
    faults: sum((r) => Object.values(r.faults).reduce((a, n) => a + (n ?? 0), 0)),
    failovers: sum((r) => r.failovers),
    lockRecoveries: sum((r) => r.lockRecoveries),
    violations: sum((r) => r.violations.length + (r.traceViolations?.length ?? 0)),
    errors: sum((r) => r.errors.length),
  }
}

/** One line per round, for the terminal. */
export function formatRound(r: RoundReport): string {
  const faults = Object.entries(r.faults)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ')
  const verdict = r.ok
    ? 'ok'
    : `${r.violations.length + (r.traceViolations?.length ?? 0)} violation(s), ${r.errors.length} error(s)`
  return `round ${r.round} (seed ${r.seed}, ${r.mode}): ${verdict}; ${r.operations.total} operations (${r.operations.ok} ok, ${r.operations.fail} failed, ${r.operations.info} indeterminate), counter ${r.counter} = ${r.acknowledged} acknowledged, ${r.fencingRejections} fenced; faults: ${faults || 'none'}; ${r.failovers} failovers, ${r.lockRecoveries} lock recoveries; ${r.linearizability.map((v) => `${v.model} ${v.verdict}`).join(', ')}`
}

/** Runs the rounds one after the other; each cleans up after itself (runCluster). */
export async function runJepsen(o: JepsenOptions, io: RunIo): Promise<JepsenReport> {
  if (o.out !== undefined) mkdirSync(o.out, { recursive: true })
  const rounds: RoundReport[] = []
  for (let round = 1; round <= o.rounds; round++) {
    const seed = (o.run.seed + round - 1) % 2 ** 31
    const file = (ext: string) =>
      o.out === undefined ? undefined : join(o.out, `round-${round}.${ext}`)
    const options: Options = {
      ...o.run,
      seed,
      trace: file('trace.json'),
      history: file('history.jsonl'),
    }
    io.line(
      `round ${round}/${o.rounds}: seed ${seed}, ${options.n} nodes, ${options.seconds} s, nemesis ${o.nemesis.join(',')}`,
    )
    const summary = await runCluster(options, { ...io, tty: false })
    let again: string[] | undefined
    if (options.trace !== undefined) {
      writeFileSync(file('summary.json')!, `${JSON.stringify(summary, null, 1)}\n`)
      again = judgeTrace(JSON.parse(readFileSync(options.trace, 'utf8')) as TraceDocument)
    }
    const report = roundReport(round, seed, summary, again)
    rounds.push(report)
    io.line(formatRound(report))
    for (const v of report.violations) io.line(`  - ${v}`)
    for (const v of report.linearizability)
      for (const o of v.counterexample ?? []) io.line(`    ${v.model}: ${describeOperation(o)}`)
    for (const v of report.traceViolations ?? []) io.line(`  - (judged from the trace file) ${v}`)
    for (const e of report.errors) io.line(`  error: ${e}`)
  }
  return { ok: rounds.every((r) => r.ok), rounds, totals: totalsOf(rounds) }
}

export function formatJepsen(r: JepsenReport): string {
  const t = r.totals
  return [
    ...r.rounds.map(formatRound),
    `${r.rounds.length} round(s): ${r.ok ? 'every check held' : 'VIOLATIONS'}; ${t.operations} operations (${t.okOperations} ok), ${t.faults} faults, ${t.failovers} failovers, ${t.lockRecoveries} lock recoveries, ${t.violations} violations, ${t.errors} errors`,
  ].join('\n')
}
