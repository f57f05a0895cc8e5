/**
 * `pnpm bench [word] [--save]`: runs every bench/src/*.bench.ts (default export: a Benchmark)
 * whose name contains the word, prints a table and writes one JSON file per figure to bench/out/
 * (untracked). `--save` writes them to bench/results/ instead: the committed figures the READMEs
 * quote, which a run replaces only when asked. `--out DIR` writes them to DIR (bench:against).
 * Each figure records the machine's load average when its file started and ended, and, where the
 * benchmark pairs rounds, the spread of the per-round ratios (`ratios`).
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { Benchmark, BenchResult } from './src/lib/result.js'
import { withRatio } from './src/lib/result.js'
import { formatFigure as format, printTable } from './src/lib/table.js'

const here = fileURLToPath(new URL('.', import.meta.url))
const args = process.argv.slice(2)
const save = args.includes('--save')
const outAt = args.indexOf('--out')
const outArg = outAt >= 0 ? args[outAt + 1] : undefined
const unknown = args.filter((a) => a.startsWith('-') && a !== '--save' && a !== '--out')
const words = args.filter((a, i) => !a.startsWith('-') && (outAt < 0 || i !== outAt + 1))
if (unknown.length > 0 || words.length > 1 || (outAt >= 0 && !outArg) || (save && outArg)) {
  console.error('usage: pnpm bench [word] [--save | --out DIR]')
  process.exit(2)
}
const filter = words[0]
const outDir = outArg ?? (save ? `${here}results` : `${here}out`)
const files = readdirSync(`${here}src`)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => !filter || f.includes(filter))
  .sort()
if (files.length === 0) {
  console.error(`no benchmark matches ${JSON.stringify(filter)}`)
  process.exit(2)
}

mkdirSync(outDir, { recursive: true })
const machine = `${cpus().length} cores, Node ${process.version}`
const date = new Date().toISOString().slice(0, 10)
const rows: string[][] = []
for (const file of files) {
  const bench = (await import(pathToFileURL(`${here}src/${file}`).href)).default as Benchmark
  console.error(`running ${file}...`)
  const loadAtStart = loadAverage()
  const results = await bench()
  const load = { start: loadAtStart, end: loadAverage() }
  for (const raw of results) {
    const result: BenchResult & { machine: string; date: string; loadAverage: typeof load } = {
      ...withRatio(raw),
      machine,
      date,
      loadAverage: load,
    }
    writeFileSync(`${outDir}/${result.name}.json`, `${JSON.stringify(result, null, 2)}\n`)
    rows.push([
      result.name,
      `${format(result.value)} ${result.unit}`,
      result.baseline ? `${format(result.baseline.value)} (${result.baseline.name})` : '',
      result.ratio === undefined ? '' : `${result.ratio}x`,
      result.ratios
        ? `${result.ratios.min}-${result.ratios.max}x (${result.ratios.perRound.length})`
        : '',
    ])
  }
}
printTable(['benchmark', 'median', 'baseline', 'ratio', 'per round (rounds)'], rows)
console.error(
  outArg
    ? `written to ${outArg}`
    : save
      ? `saved to bench/results/ (the committed figures): commit them with the README figures they support`
      : `written to bench/out/ (untracked); --save writes them to bench/results/`,
)

/** The 1, 5 and 15 minute load averages, to tell a quiet run from a busy one. */
function loadAverage(): number[] {
  return loadavg().map((x) => Math.round(x * 100) / 100)
}
