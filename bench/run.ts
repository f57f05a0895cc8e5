/**
 * `pnpm bench [word] [--save]`: runs every bench/src/*.bench.ts (default export: a Benchmark)
 * whose name contains the word, prints a table and writes one JSON file per figure to bench/out/
 * (untracked). `--save` writes them to bench/results/ instead: the committed figures the READMEs
 * quote, which a run replaces only when asked.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { Benchmark, BenchResult } from './src/lib/result.js'
import { withRatio } from './src/lib/result.js'

const here = fileURLToPath(new URL('.', import.meta.url))
const args = process.argv.slice(2)
const save = args.includes('--save')
const unknown = args.filter((a) => a.startsWith('-') && a !== '--save')
const words = args.filter((a) => !a.startsWith('-'))
if (unknown.length > 0 || words.length > 1) {
  console.error('usage: pnpm bench [word] [--save]')
  process.exit(2)
}
const filter = words[0]
const outDir = save ? `${here}results` : `${here}out`
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
  for (const raw of await bench()) {
    const result: BenchResult & { machine: string; date: string } = {
      ...withRatio(raw),
      machine,
      date,
    }
    writeFileSync(`${outDir}/${result.name}.json`, `${JSON.stringify(result, null, 2)}\n`)
    rows.push([
      result.name,
      `${format(result.value)} ${result.unit}`,
      result.baseline ? `${format(result.baseline.value)} (${result.baseline.name})` : '',
      result.ratio === undefined ? '' : `${result.ratio}x`,
    ])
  }
}
printTable(['benchmark', 'median', 'baseline', 'ratio'], rows)
console.error(
  save
    ? `saved to bench/results/ (the committed figures): commit them with the README figures they support`
    : `written to bench/out/ (untracked); --save writes them to bench/results/`,
)

function format(n: number): string {
  if (Math.abs(n) >= 100) return Math.round(n).toLocaleString('en-US')
  return n.toPrecision(3)
}

function printTable(head: string[], body: string[][]): void {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)))
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ')
  console.log(line(head))
  console.log(widths.map((w) => '-'.repeat(w)).join('  '))
  for (const row of body) console.log(line(row))
}
