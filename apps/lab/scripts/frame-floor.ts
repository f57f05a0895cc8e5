/**
 * What any page gets here: the browser test's measure of a lab step (a real click to the frame
 * shown, the click's Event Timing duration: raster and compositing included), taken of pages that
 * do next to nothing per click, so that a lab step's figure can be read against this machine's
 * Chromium. Run inside a loopback-only network namespace, as root:
 *
 *   ip netns add sd-prof && ip -n sd-prof link set lo up
 *   ip netns exec sd-prof node --import tsx scripts/frame-floor.ts
 *
 * Each page (1440 × 900, as the browser test) is clicked CLICKS times (60); the median and 95th
 * percentile are printed, a click Event Timing does not list (under 16 ms) counted as 16. The
 * drawing has the 5,000-event run's size: 30,720 × 516 px, 48 lanes, 11,000 lines, 5,000 marks,
 * whole or only the stretch the lab draws around the view (two panes wide). Figures only,
 * asserted nowhere.
 */
import { launchChromium } from './chromium.js'

const CLICKS = Number(process.env.CLICKS ?? 60)
const WIDTH = 30_720
const HEIGHT = 516
const LANES = 48
/** The stretch drawn (two panes wide) and where the pane is scrolled in it. */
const STRETCH = { from: 13_500, to: 16_300 }
const SCROLLED = 14_200
/** Where the lines that a click moves (the arrows in flight at a step) end before the first. */
const NOW_X = 15_000

interface Variant {
  name: string
  /** A drawing in a pane beside the button: whole or the stretch. */
  drawing?: 'whole' | 'stretch'
  /** Each click also shows 3 more marks and moves the end of 250 lines crossing the view. */
  step?: boolean
  /** Those 250 lines painted on a canvas under the drawing, not in it. */
  linesOnCanvas?: boolean
  css?: string
}

const VARIANTS: Variant[] = [
  { name: 'a text written' },
  { name: 'a text written beside the whole drawing', drawing: 'whole' },
  {
    name: 'the same, the pane contained',
    drawing: 'whole',
    css: '#pane { contain: strict }',
  },
  { name: 'a step in the whole drawing', drawing: 'whole', step: true },
  { name: 'a step in the stretch', drawing: 'stretch', step: true },
  {
    name: 'a step in the stretch, its lines on a canvas',
    drawing: 'stretch',
    step: true,
    linesOnCanvas: true,
  },
]

/** A seeded stream: the drawing is the same in every run. */
function stream(seed: number): () => number {
  let x = seed >>> 0
  return () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0
    return x / 4294967296
  }
}

const lane = (i: number) => 6 + i * ((HEIGHT - 12) / (LANES - 1))

/** The lines a step moves: their start and both lanes' y. */
function movingLines(): [number, number, number][] {
  const r = stream(11)
  return Array.from({ length: 250 }, () => [
    NOW_X - 1_000 + r() * 900,
    lane(Math.floor(r() * LANES)),
    lane(Math.floor(r() * LANES)),
  ])
}

function svgOf(v: Variant): string {
  const r = stream(7)
  const { from, to } = v.drawing === 'stretch' ? STRETCH : { from: 0, to: WIDTH }
  const inside = (x: number) => x >= from && x <= to
  const parts: string[] = []
  for (let i = 0; i < LANES; i++) {
    parts.push(`<line x1="0" y1="${lane(i)}" x2="${WIDTH}" y2="${lane(i)}" stroke="#999"/>`)
  }
  for (let i = 0; i < 11_000; i++) {
    const x1 = r() * WIDTH
    const x2 = x1 + 20 + r() * 200
    const y1 = lane(Math.floor(r() * LANES))
    const y2 = lane(Math.floor(r() * LANES))
    if (inside(x1) || inside(x2)) {
      parts.push(
        `<line x1="${x1.toFixed(1)}" y1="${y1}" x2="${x2.toFixed(1)}" y2="${y2}" stroke="#36c"/>`,
      )
    }
  }
  for (let i = 0; i < 5_000; i++) {
    const x = r() * WIDTH
    const y = lane(Math.floor(r() * LANES))
    if (inside(x)) parts.push(`<circle cx="${x.toFixed(1)}" cy="${y}" r="4" fill="#333"/>`)
  }
  for (let i = 0; i < 600; i++) {
    parts.push(
      `<circle class="later" cx="${NOW_X + i * 2}" cy="${lane(i % LANES)}" r="4" fill="#06f" visibility="hidden"/>`,
    )
  }
  if (!v.linesOnCanvas) {
    for (const [x1, y1, y2] of movingLines()) {
      parts.push(
        `<line class="flight" x1="${x1.toFixed(1)}" y1="${y1}" x2="${NOW_X}" y2="${y2}" stroke="#9bd"/>`,
      )
    }
  }
  return `<svg width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" style="display:block;position:relative;z-index:1">${parts.join('')}</svg>`
}

function pageOf(v: Variant): string {
  const canvas = v.linesOnCanvas
    ? `<canvas id="over" width="${STRETCH.to - STRETCH.from}" height="${HEIGHT}" style="position:absolute;top:0;left:${STRETCH.from}px"></canvas>`
    : ''
  const pane = v.drawing
    ? `<div id="pane" style="width:1400px;height:${HEIGHT + 20}px;overflow:auto;position:relative;background:#fff">${svgOf(v)}${canvas}</div>`
    : ''
  return `<!doctype html><html><body style="margin:0"><style>${v.css ?? ''}</style>
<button id="go" style="margin:8px">step</button> <span id="out">0</span>
${pane}
<script>
const step = ${Boolean(v.step)}
const later = [...document.querySelectorAll('.later')]
const flight = [...document.querySelectorAll('.flight')]
const lines = ${JSON.stringify(v.linesOnCanvas ? movingLines() : [])}
const over = document.getElementById('over')
const pane = document.getElementById('pane')
if (pane) pane.scrollLeft = ${SCROLLED}
let n = 0
document.getElementById('go').addEventListener('click', () => {
  n++
  document.getElementById('out').textContent = String(n)
  if (!step) return
  for (let i = 0; i < 3; i++) later[(3 * n + i) % later.length].setAttribute('visibility', 'visible')
  const x2 = ${NOW_X} + n * 2
  for (const line of flight) line.setAttribute('x2', String(x2))
  if (over) {
    const g = over.getContext('2d')
    g.clearRect(0, 0, over.width, over.height)
    g.strokeStyle = '#9bd'
    for (const [x1, y1, y2] of lines) {
      g.beginPath()
      g.moveTo(x1 - ${STRETCH.from}, y1)
      g.lineTo(x2 - ${STRETCH.from}, y2)
      g.stroke()
    }
  }
})
window.shown = []
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if (e.name === 'click') window.shown.push(e.duration)
}).observe({ type: 'event', durationThreshold: 16 })
</script></body></html>`
}

const { browser, context } = await launchChromium()
try {
  for (const v of VARIANTS) {
    const tab = await context.newPage()
    await tab.setContent(pageOf(v))
    await tab.waitForTimeout(500)
    for (let i = 0; i < CLICKS; i++) {
      await tab.click('#go')
      // The frame after the click, then a pause as between a reader's clicks.
      await tab.evaluate(
        'new Promise((r) => requestAnimationFrame(() => setTimeout(() => requestAnimationFrame(() => setTimeout(r, 30)), 0)))',
      )
    }
    const listed = await tab.evaluate<number[]>('window.shown')
    const all = [
      ...listed,
      ...Array.from({ length: Math.max(0, CLICKS - listed.length) }, () => 16),
    ]
    all.sort((a, b) => a - b)
    const at = (q: number) => all[Math.min(all.length - 1, Math.floor(q * all.length))]
    console.log(`${v.name}: frame shown median ${at(0.5)} ms, p95 ${at(0.95)} ms`)
    await tab.close()
  }
} finally {
  await browser.close()
}
