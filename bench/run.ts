/**
 * `pnpm bench [filter]`: runs every bench/src/*.bench.ts (default export: a Benchmark),
 * prints a table and writes one JSON file per figure to bench/results/.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { Benchmark, BenchResult } from './src/lib/result.js'
import { withRatio } from './src/lib/result.js'

const here = fileURLToPath(new URL('.', import.meta.url))
const filter = process.argv[2]
const files = readdirSync(`${here}src`)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => !filter || f.includes(filter))
  .sort()
if (files.length === 0) {
  console.error(`no benchmark matches ${JSON.stringify(filter)}`)
  process.exit(2)
}

mkdirSync(`${here}results`, { recursive: true })
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
    writeFileSync(`${here}results/${result.name}.json`, `${JSON.stringify(result, null, 2)}\n`)
    rows.push([
      result.name,
      `${format(result.value)} ${result.unit}`,
      result.baseline ? `${format(result.baseline.value)} (${result.baseline.name})` : '',
      result.ratio === undefined ? '' : `${result.ratio}x`,
    ])
  }
}
printTable(['benchmark', 'median', 'baseline', 'ratio'], rows)

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
