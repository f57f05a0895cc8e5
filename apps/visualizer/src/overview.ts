/// <reference lib="dom" />
import type { Layout } from './layout.js'
import type { Diagram } from './model.js'
import { el } from './svg.js'
import { fullWindow } from './viewport.js'

/**
 * The overview strip: the whole run at once, events binned per process, the faults (processes
 * down or paused on their row, partitions and packet loss across all rows, marks as lines), and
 * the brush on the window the detail view shows (its body and its two edge handles; the page
 * moves them and reacts to drags).
 */
export interface Overview {
  svg: SVGSVGElement
  brush: SVGElement
  from: SVGElement
  to: SVGElement
  width: number
}

const BINS = 240
const HEIGHT = 54

export function renderOverview(d: Diagram, base: Layout, width: number): Overview {
  const svg = el('svg', { width, height: HEIGHT })
  svg.dataset.overview = 'run'
  const full = fullWindow(base)
  const ox = (x: number) => ((x - full.from) / (full.to - full.from)) * width
  const xOf = (seq: number | undefined) => (seq === undefined ? width : ox(base.x[seq]!))
  const rowH = (HEIGHT - 8) / Math.max(1, d.processes.length)
  const row = new Map(d.processes.map((p, i) => [p, 4 + i * rowH]))

  // Bands across all rows first, under everything else.
  const across = [
    ...d.partitions.map((b) => ({ ...b, kind: 'partition' })),
    ...d.losses.map((b) => ({ ...b, kind: 'loss' })),
  ]
  for (const b of across) {
    const x1 = xOf(b.fromSeq)
    el(
      'rect',
      {
        x: x1,
        width: Math.max(1, xOf(b.toSeq) - x1),
        y: 1,
        height: HEIGHT - 2,
        class: `ov-${b.kind}`,
        'data-overview-band': b.kind,
      },
      svg,
    )
  }
  for (const p of d.processes) {
    const y = row.get(p)! + rowH / 2
    el('line', { x1: 0, x2: width, y1: y, y2: y, class: 'ov-line' }, svg)
  }
  const onRows = [
    ...d.down.map((b) => ({ ...b, kind: 'down' })),
    ...d.paused.map((b) => ({ ...b, kind: 'paused' })),
  ]
  for (const b of onRows) {
    const x1 = xOf(b.fromSeq)
    el(
      'rect',
      {
        x: x1,
        width: Math.max(1, xOf(b.toSeq) - x1),
        y: row.get(b.process)!,
        height: rowH,
        class: `ov-${b.kind}`,
        'data-overview-band': b.kind,
      },
      svg,
    )
  }
  const bins = new Map<string, number[]>()
  for (const e of d.events) {
    let counts = bins.get(e.process)
    if (!counts) {
      counts = new Array<number>(BINS).fill(0)
      bins.set(e.process, counts)
    }
    const i = Math.min(BINS - 1, Math.max(0, Math.floor((ox(base.x[e.seq]!) / width) * BINS)))
    counts[i]!++
  }
  let most = 1
  for (const counts of bins.values()) for (const c of counts) most = Math.max(most, c)
  for (const [p, counts] of bins)
    counts.forEach((c, i) => {
      if (c === 0) return
      el(
        'rect',
        {
          x: (i * width) / BINS,
          width: width / BINS + 0.5,
          y: row.get(p)! + rowH * 0.15,
          height: Math.max(1, rowH * 0.7),
          opacity: (0.25 + (0.75 * Math.log1p(c)) / Math.log1p(most)).toFixed(2),
          class: 'ov-bin',
          'data-overview-bin': p,
        },
        svg,
      )
    })
  for (const m of d.marks) {
    const x = xOf(m.seq)
    el(
      'line',
      { x1: x, x2: x, y1: 1, y2: HEIGHT - 1, class: 'ov-mark', 'data-overview-mark': m.id },
      svg,
    )
  }
  const brush = el(
    'rect',
    { y: 1, height: HEIGHT - 2, class: 'brush', 'data-brush': 'window' },
    svg,
  )
  const handle = (side: string) =>
    el(
      'rect',
      { y: 1, height: HEIGHT - 2, width: 6, class: 'brush-handle', 'data-brush-handle': side },
      svg,
    )
  return { svg, brush, from: handle('from'), to: handle('to'), width }
}
