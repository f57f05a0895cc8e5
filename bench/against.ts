/**
 * `pnpm bench:against <commit> [word] [--rounds N] [--save]`: the regression guard. Measures this
 * tree's packages and another commit's, side by side: each round runs `pnpm bench [word]` once per
 * build (alternating which goes first), both with this tree's benchmark code, the other build's
 * @sd/* packages swapped in (hooks/sd-packages-from.mjs). Reports per figure each round's ratio and
 * their median, minimum and maximum, and the load average at the start and the end; writes one JSON
 * file per figure (`<name>.against-<sha>`) to bench/out/, or bench/results/ with --save.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type AgainstRound, compareRounds, comparisonResult } from './src/lib/against-report.js'
import { prepareBaseline } from './src/lib/baseline-build.js'
import type { BenchResult } from './src/lib/result.js'
import { formatFigure as format, printTable } from './src/lib/table.js'

const here = fileURLToPath(new URL('.', import.meta.url))
const usage = 'usage: pnpm bench:against <commit> [word] [--rounds N] [--save]'

const args = process.argv.slice(2)
const save = args.includes('--save')
const roundsAt = args.indexOf('--rounds')
const rounds = roundsAt >= 0 ? Number(args[roundsAt + 1]) : 3
const positional = args.filter((a, i) => !a.startsWith('--') && i !== roundsAt + 1)
if (positional.length < 1 || positional.length > 2 || !Number.isInteger(rounds) || rounds < 1) {
  console.error(usage)
  process.exit(2)
}
const [ref, word] = positional as [string, string | undefined]
const log = (line: string) => console.error(`bench:against: ${line}`)

const baseline = prepareBaseline(join(here, '..'), ref, log)
const scratch = mkdtempSync(join(tmpdir(), 'sd-bench-against-'))
const load = { start: loadavg().map(round2), end: [] as number[] }

/** Runs the benchmarks once, on this tree's packages or the baseline's; the figures it wrote. */
function runOnce(side: 'current' | 'baseline', round: number): Map<string, BenchResult> {
  const out = join(scratch, `${side}-${round}`)
  const env: NodeJS.ProcessEnv = { ...process.env, TSX_TSCONFIG_PATH: 'tsconfig.run.json' }
  if (side === 'baseline') {
    env.SD_BENCH_PACKAGES = baseline.packagesDir
    const hook = `--import=${join(here, 'hooks', 'sd-packages-from.mjs')}`
    env.NODE_OPTIONS = [process.env.NODE_OPTIONS, hook].filter(Boolean).join(' ')
  }
  const run = spawnSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', 'run.ts', ...(word ? [word] : []), '--out', out],
    { cwd: here, env, stdio: ['ignore', 'ignore', 'inherit'] },
  )
  if (run.status !== 0)
    log(`round ${round + 1}, ${side}: the benchmark run failed (${run.status ?? run.signal})`)
  const figures = new Map<string, BenchResult>()
  let files: string[] = []
  try {
    files = readdirSync(out).filter((f) => f.endsWith('.json'))
  } catch {}
  for (const f of files) {
    const result = JSON.parse(readFileSync(join(out, f), 'utf8')) as BenchResult
    figures.set(result.name, result)
  }
  return figures
}

const measured: AgainstRound[] = []
try {
  for (let r = 0; r < rounds; r++) {
    const order =
      r % 2 === 0 ? (['current', 'baseline'] as const) : (['baseline', 'current'] as const)
    const got: Partial<Record<'current' | 'baseline', Map<string, BenchResult>>> = {}
    for (const side of order) {
      log(
        `round ${r + 1}/${rounds}: ${side === 'current' ? 'this tree' : baseline.sha.slice(0, 7)}`,
      )
      got[side] = runOnce(side, r)
    }
    measured.push({ current: got.current!, baseline: got.baseline! })
  }
} finally {
  rmSync(scratch, { recursive: true, force: true })
}
load.end = loadavg().map(round2)

const { figures, unmatched } = compareRounds(measured)
const outDir = join(here, save ? 'results' : 'out')
mkdirSync(outDir, { recursive: true })
const machine = `${cpus().length} cores, Node ${process.version}`
const date = new Date().toISOString().slice(0, 10)
const against = { sha: baseline.sha, subject: baseline.subject, ref }
const rows = figures.map((f) => {
  const result = { ...comparisonResult(f, against, load), machine, date }
  writeFileSync(join(outDir, `${result.name}.json`), `${JSON.stringify(result, null, 2)}\n`)
  return [
    f.name,
    `${format(result.value)} ${f.unit}`,
    format(result.baseline!.value),
    `${f.ratio.median}x`,
    `${f.ratio.min}-${f.ratio.max}x`,
  ]
})
printTable(['figure', 'this tree', baseline.sha.slice(0, 7), 'ratio (median)', 'min-max'], rows)
console.log(
  `load average (1, 5, 15 min): ${load.start.join(' ')} at the start, ${load.end.join(' ')} at the end`,
)
if (unmatched.length > 0) console.log(`not in every run of both builds: ${unmatched.join(', ')}`)
if (figures.length === 0) process.exitCode = 1

function round2(x: number): number {
  return Math.round(x * 100) / 100
}
