/**
 * Draws the failure detectors' trade-off curves from the benchmark's JSON (no plotting
 * dependency: the SVG is written by hand). One panel per condition (rows) and size (columns):
 * median detection time of a crash against false positives (live nodes declared dead, or
 * suspected where the detector has no separate death) per node-hour, one line per detector
 * through its settings, its operating point ringed (the fastest at <= 1 per node-hour).
 *
 *   pnpm --filter @sd/bench exec tsx src/lib/plot-detector.ts [results dir] [out.svg...]
 *
 * Defaults: reads bench/results/, writes bench/results/election.detector.tradeoff.svg and
 * packages/election/docs/detector-tradeoff.svg (the one the package README shows). Prints the
 * operating points as a Markdown table (for bench/README.md).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { CurvePoint } from './detector-results.js'

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, '..', '..', '..')
const [dirArg, ...outArgs] = process.argv.slice(2)
const dir = dirArg ?? join(root, 'bench', 'results')
const outs =
  outArgs.length > 0
    ? outArgs
    : [
        join(root, 'bench', 'results', 'election.detector.tradeoff.svg'),
        join(root, 'packages', 'election', 'docs', 'detector-tradeoff.svg'),
      ]

interface Figure {
  detector: string
  condition: string
  n: number
  knob: Record<string, number>
  curve: CurvePoint[]
  meets: boolean
  date: string
}

const DETECTORS: Record<string, { label: string; color: string }> = {
  heartbeat: { label: 'heartbeat timeout (all-to-all)', color: '#1f77b4' },
  phi: { label: 'phi accrual (same heartbeats)', color: '#ff7f0e' },
  swim: { label: 'SWIM + Lifeguard', color: '#2ca02c' },
  'node-discover-model': { label: "node-discover's rule (model)", color: '#7f7f7f' },
}
const CONDITION_LABEL: Record<string, string> = {
  loss0: 'no loss',
  loss1: '1% loss',
  loss5: '5% loss',
  pause: 'pauses 50-200 ms',
}

const figures: Figure[] = []
for (const file of readdirSync(dir)) {
  const m = /^election\.detector\.([a-z-]+)\.(loss\d+|pause)\.n(\d+)\.json$/.exec(file)
  if (!m) continue
  const json = JSON.parse(readFileSync(join(dir, file), 'utf8'))
  figures.push({
    detector: m[1]!,
    condition: m[2]!,
    n: Number(m[3]),
    knob: json.params.knob,
    curve: json.extra.curve,
    meets: json.params.meetsFalsePositiveTarget,
    date: json.date,
  })
}
if (figures.length === 0) {
  console.error(`no election.detector.*.json in ${dir}: run pnpm bench election-detector first`)
  process.exit(2)
}

const sizes = [...new Set(figures.map((f) => f.n))].sort((a, b) => a - b)
const conditions = Object.keys(CONDITION_LABEL).filter((c) =>
  figures.some((f) => f.condition === c),
)
const W = 250
const H = 190
const M = { left: 60, top: 80, gapX: 30, gapY: 50 }
const plotW = W - 20
const plotH = H - 40
const width = Math.max(900, M.left + sizes.length * (W + M.gapX))
const height = M.top + conditions.length * (H + M.gapY) + 20

// Axes: x = false positives per node-hour, log from 0.1 (0 drawn at the left edge); y = ms, log.
const points = figures.flatMap((f) => f.curve)
const fp = (p: CurvePoint) => p.deathsPerNodeHour
const xMax = 10 ** Math.ceil(Math.log10(Math.max(10, ...points.map(fp))))
const xMin = 0.1
const times = points.flatMap((p) => (p.detectionMs.median === null ? [] : [p.detectionMs.median]))
const yMin = 10 ** Math.floor(Math.log10(Math.max(1, Math.min(...times))))
const yMax = 10 ** Math.ceil(Math.log10(Math.max(...times)))
const ZERO_GAP = 14 // px left of 0.1 where zero sits
const sx = (x: number) =>
  x <= 0
    ? 4
    : ZERO_GAP +
      ((Math.log10(Math.max(x, xMin)) - Math.log10(xMin)) / (Math.log10(xMax) - Math.log10(xMin))) *
        (plotW - ZERO_GAP)
const sy = (y: number) =>
  plotH - ((Math.log10(y) - Math.log10(yMin)) / (Math.log10(yMax) - Math.log10(yMin))) * plotH

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;')
const out: string[] = []
out.push(
  `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="10" role="img">`,
  `<title>Failure detectors in the simulator: crash detection time against false positives, per detector, loss and group size</title>`,
  `<rect width="100%" height="100%" fill="white"/>`,
  `<text x="${M.left}" y="18" font-size="13" font-weight="bold">Failure detectors in the simulator: crash detection time against false positives</text>`,
  `<text x="${M.left}" y="32">x: live nodes declared dead (suspected, for detectors without a separate death) per node-hour, log (0 at the left edge).</text>`,
  `<text x="${M.left}" y="44">y: median ms until every live node knows of a crash, log. Dashed: 1 per node-hour. Ringed: the fastest setting at or under it.</text>`,
)
let lx = M.left
for (const [key, d] of Object.entries(DETECTORS)) {
  if (!figures.some((f) => f.detector === key)) continue
  out.push(
    `<line x1="${lx}" y1="60" x2="${lx + 18}" y2="60" stroke="${d.color}" stroke-width="2"/>`,
    `<text x="${lx + 22}" y="63">${esc(d.label)}</text>`,
  )
  lx += 30 + d.label.length * 5.6
}

conditions.forEach((condition, row) => {
  sizes.forEach((n, col) => {
    const ox = M.left + col * (W + M.gapX)
    const oy = M.top + row * (H + M.gapY)
    out.push(`<g transform="translate(${ox},${oy})">`)
    out.push(
      `<text x="0" y="-6" font-weight="bold">${esc(CONDITION_LABEL[condition]!)}, n = ${n.toLocaleString('en-US')}</text>`,
      `<rect x="0" y="0" width="${plotW}" height="${plotH}" fill="none" stroke="#999"/>`,
    )
    for (let y = yMin; y <= yMax; y *= 10) {
      out.push(
        `<line x1="0" y1="${sy(y)}" x2="${plotW}" y2="${sy(y)}" stroke="#eee"/>`,
        `<text x="-4" y="${sy(y) + 3}" text-anchor="end">${y >= 1000 ? `${y / 1000} s` : `${y} ms`}</text>`,
      )
    }
    out.push(`<text x="${sx(0)}" y="${plotH + 12}" text-anchor="middle">0</text>`)
    for (let x = xMin; x <= xMax; x *= 10) {
      const label = x < 1 ? String(Number(x.toPrecision(1))) : x.toLocaleString('en-US')
      out.push(
        `<line x1="${sx(x)}" y1="0" x2="${sx(x)}" y2="${plotH}" stroke="#eee"/>`,
        `<text x="${sx(x)}" y="${plotH + 12}" text-anchor="middle">${label}</text>`,
      )
    }
    out.push(
      `<line x1="${sx(1)}" y1="0" x2="${sx(1)}" y2="${plotH}" stroke="#d62728" stroke-dasharray="4 3"/>`,
    )
    if (!figures.some((g) => g.condition === condition && g.n === n)) {
      out.push(
        `<text x="${plotW / 2}" y="${plotH / 2}" text-anchor="middle" fill="#999">not measured</text>`,
      )
    }
    for (const [key, d] of Object.entries(DETECTORS)) {
      const f = figures.find((g) => g.detector === key && g.condition === condition && g.n === n)
      if (!f) continue
      const pts = f.curve
        .filter((p) => p.detectionMs.median !== null)
        .sort((a, b) => a.detectionMs.median! - b.detectionMs.median!)
      const xy = pts.map((p) => `${sx(fp(p)).toFixed(1)},${sy(p.detectionMs.median!).toFixed(1)}`)
      out.push(
        `<polyline points="${xy.join(' ')}" fill="none" stroke="${d.color}" stroke-width="1.5"/>`,
      )
      for (const p of pts) {
        const title = `${d.label} ${JSON.stringify(p.knob)}: ${p.detectionMs.median} ms (p99 ${p.detectionMs.p99}), ${fp(p)}/node-h over ${p.nodeHours} node-h`
        out.push(
          `<circle cx="${sx(fp(p)).toFixed(1)}" cy="${sy(p.detectionMs.median!).toFixed(1)}" r="2.5" fill="${d.color}"><title>${esc(title)}</title></circle>`,
        )
      }
      const op = f.meets && pts.find((p) => JSON.stringify(p.knob) === JSON.stringify(f.knob))
      if (op) {
        out.push(
          `<circle cx="${sx(fp(op)).toFixed(1)}" cy="${sy(op.detectionMs.median!).toFixed(1)}" r="6" fill="none" stroke="${d.color}" stroke-width="1.5"/>`,
        )
      }
    }
    out.push('</g>')
  })
})
const dates = [...new Set(figures.map((f) => f.date))].join(', ')
out.push(
  `<text x="${M.left}" y="${height - 8}" fill="#666">Generated by bench/src/lib/plot-detector.ts from bench/results/election.detector.*.json (${esc(dates)}).</text>`,
  '</svg>',
)
for (const file of outs) {
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, `${out.join('\n')}\n`)
  console.error(`wrote ${file}`)
}

// The operating points, as the README's table: median / p99 ms (the setting), per size.
const cell = (f: Figure | undefined) => {
  if (!f) return ''
  const p = f.curve.find((q) => JSON.stringify(q.knob) === JSON.stringify(f.knob))
  if (!p || p.detectionMs.median === null) return 'none'
  const knob = Object.entries(f.knob)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')
  const mark = f.meets ? '' : ' (over 1/node-h)'
  return `${Math.round(p.detectionMs.median)} / ${Math.round(p.detectionMs.p99!)} (${knob})${mark}`
}
console.log(
  `| detector | condition | ${sizes.map((n) => `n = ${n.toLocaleString('en-US')}`).join(' | ')} |`,
)
console.log(`|---|---|${sizes.map(() => '---').join('|')}|`)
for (const key of Object.keys(DETECTORS)) {
  for (const condition of conditions) {
    const row = sizes.map((n) =>
      cell(figures.find((f) => f.detector === key && f.condition === condition && f.n === n)),
    )
    if (row.every((c) => c === '')) continue
    console.log(`| ${DETECTORS[key]!.label} | ${CONDITION_LABEL[condition]} | ${row.join(' | ')} |`)
  }
}
