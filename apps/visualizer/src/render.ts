/// <reference lib="dom" />
import type { LaneSegment } from './annotations.js'
import { arrowLabel, markLabel } from './annotations.js'
import type { Tick } from './axis.js'
import { drawFaults, type Faults } from './bands.js'
import { drawHistories } from './history-view.js'
import { LabelSpace } from './label-space.js'
import type { Layout } from './layout.js'
import { STEP } from './layout.js'
import type {
  Diagram,
  DownBand,
  DuplicateMark,
  EventKind,
  PartitionBand,
  VizEvent,
  VizMessage,
} from './model.js'
import { el } from './svg.js'
import { fieldOf } from './trace-entries.js'

export { partitionLabel } from './bands.js'
export { typeColors } from './colors.js'

/** The drawn elements, for the page to show, hide and highlight. */
export interface Drawing {
  svg: SVGSVGElement
  events: Map<VizEvent, SVGGElement>
  messages: Map<VizMessage, SVGGElement>
  down: Map<DownBand, SVGRectElement>
  partitions: Map<PartitionBand, SVGGElement>
  duplicates: Map<DuplicateMark, SVGGElement>
  /** Every band (down, paused, partition, loss) and mark line, for `showFaultsAt`. */
  faults: Faults
  now: SVGLineElement
  /** The process names, moved along when the page scrolls sideways. */
  labels?: SVGGElement
  /** The time axis at the top, redrawn for the visible stretch (`drawAxis`). */
  axis: SVGGElement
  /** The stretch of screen x drawn (undefined: all of it); what lies outside is not in the DOM. */
  range?: DrawRange
}

/** A stretch of screen x: only marks, arrows and lanes that reach into it are drawn. */
export interface DrawRange {
  from: number
  to: number
}

/** Which state lane color goes with which state (the legend shows the same). */
export const LANE_STATES = ['holder', 'waiting', 'leader', 'follower', 'crashed', 'paused'] as const

/** The time axis: a tick and its time (with unit) every so often, across the drawing's top. */
export function drawAxis(axis: SVGGElement, ticks: readonly Tick[], height: number): void {
  axis.replaceChildren()
  for (const t of ticks) {
    const g = el('g', { class: 'tick', 'data-tick': t.t, transform: `translate(${t.x},0)` }, axis)
    el('line', { y1: 16, y2: height - 8, class: 'grid' }, g)
    el('line', { y1: 12, y2: 18, class: 'tick-mark' }, g)
    el('text', { x: 3, y: 11, class: 'tick-label' }, g).textContent = t.label
  }
}

/** A small shape per event kind, centered on (0, 0); the legend draws the same. */
export function drawMark(kind: EventKind, parent: Element, color?: string): void {
  switch (kind) {
    case 'send':
      el('circle', { r: 4.5, fill: color ?? '#333', class: 'shape' }, parent)
      break
    case 'deliver':
      el(
        'circle',
        { r: 4.5, fill: '#fff', stroke: color ?? '#333', 'stroke-width': 2, class: 'shape' },
        parent,
      )
      break
    case 'emit':
      el(
        'polygon',
        {
          points: star(6.5, 2.8),
          fill: '#f2b705',
          stroke: '#7a5c00',
          'stroke-width': 0.8,
          class: 'shape',
        },
        parent,
      )
      break
    case 'request':
      el('rect', { x: -4, y: -4, width: 8, height: 8, fill: '#7b3fa0', class: 'shape' }, parent)
      break
    case 'timer-fire':
      el('polygon', { points: '0,-5.5 5,4 -5,4', fill: '#138a8a', class: 'shape' }, parent)
      break
    case 'timer-set':
      el('line', { x1: 0, y1: -6, x2: 0, y2: 6, stroke: '#138a8a', 'stroke-width': 1.5 }, parent)
      break
    case 'timer-cancel':
      el(
        'path',
        { d: 'M-3,-3L3,3M3,-3L-3,3', stroke: '#138a8a', 'stroke-width': 1.5, fill: 'none' },
        parent,
      )
      break
    case 'storage':
      el('rect', { x: -2.5, y: -2.5, width: 5, height: 5, fill: '#999', class: 'shape' }, parent)
      break
    case 'start':
      el('line', { x1: 0, y1: -8, x2: 0, y2: 8, stroke: '#222', 'stroke-width': 2.5 }, parent)
      break
    case 'crash':
      el(
        'path',
        { d: 'M-6,-6L6,6M6,-6L-6,6', stroke: '#c0161d', 'stroke-width': 3.5, fill: 'none' },
        parent,
      )
      break
    case 'restart':
      el(
        'circle',
        { r: 6, fill: '#fff', stroke: '#1a8f3c', 'stroke-width': 2.5, class: 'shape' },
        parent,
      )
      el(
        'path',
        { d: 'M2,-7L6,-5L3,-2', stroke: '#1a8f3c', 'stroke-width': 2, fill: 'none' },
        parent,
      )
      break
    case 'pause':
      el('rect', { x: -5, y: -6, width: 3.5, height: 12, fill: '#b26b00', class: 'shape' }, parent)
      el('rect', { x: 1.5, y: -6, width: 3.5, height: 12, fill: '#b26b00', class: 'shape' }, parent)
      break
    case 'resume':
      el('polygon', { points: '-4,-6 6,0 -4,6', fill: '#b26b00', class: 'shape' }, parent)
      break
    case 'clock':
      el('polygon', { points: '0,-5 5,0 0,5 -5,0', fill: '#666', class: 'shape' }, parent)
      break
    case 'clock-step':
      el(
        'circle',
        { r: 5.5, fill: '#fff', stroke: '#444', 'stroke-width': 1.6, class: 'shape' },
        parent,
      )
      el(
        'path',
        { d: 'M0,-3.5L0,0L2.5,1.5', stroke: '#444', 'stroke-width': 1.4, fill: 'none' },
        parent,
      )
      break
    case 'error':
      el('circle', { r: 6, fill: '#c0161d', class: 'shape' }, parent)
      el(
        'text',
        { y: 4, 'text-anchor': 'middle', fill: '#fff', 'font-size': 10 },
        parent,
      ).textContent = '!'
      break
    default:
      el('circle', { r: 5, fill: color ?? '#444', class: 'shape' }, parent)
  }
}

/** The band during which `process` is down that holds timeline seq `seq`, if any. */
function downAt(down: readonly DownBand[], process: string, seq: number): DownBand | undefined {
  return down.find(
    (b) => b.process === process && b.fromSeq <= seq && (b.toSeq === undefined || seq <= b.toSeq),
  )
}

function star(outer: number, inner: number): string {
  const points: string[] = []
  for (let i = 0; i < 10; i++) {
    const r = i % 2 === 0 ? outer : inner
    const a = (Math.PI / 5) * i - Math.PI / 2
    points.push(`${(r * Math.cos(a)).toFixed(2)},${(r * Math.sin(a)).toFixed(2)}`)
  }
  return points.join(' ')
}

/** The arrowhead at (x2, y2), pointing from (x1, y1). */
function head(x1: number, y1: number, x2: number, y2: number): string {
  const a = Math.atan2(y2 - y1, x2 - x1)
  const l = 8
  const w = 4
  const bx = x2 - l * Math.cos(a)
  const by = y2 - l * Math.sin(a)
  const px = -Math.sin(a) * w
  const py = Math.cos(a) * w
  return `${x2},${y2} ${(bx + px).toFixed(1)},${(by + py).toFixed(1)} ${(bx - px).toFixed(1)},${(by - py).toFixed(1)}`
}

/**
 * The whole diagram as SVG: bands (partitions, processes down), process lines, message arrows,
 * event marks. Every process line carries `data-process`, every arrow `data-message` (the trace's
 * message id), every event mark `data-event` (its index in the input). With a `range`, only the
 * marks, arrows and lanes that reach into it are drawn (bands and lines always are): a large run
 * costs what the view shows.
 */
export function renderDiagram(
  d: Diagram,
  lay: Layout,
  colors: Map<string, string>,
  lanes: readonly LaneSegment[] = [],
  range?: DrawRange,
): Drawing {
  const reaches = (a: number, b: number) =>
    range === undefined || (Math.max(a, b) >= range.from && Math.min(a, b) <= range.to)
  const svg = el('svg', {
    width: lay.width,
    height: lay.height,
    viewBox: `0 0 ${lay.width} ${lay.height}`,
    id: 'diagram',
    role: 'img',
    'aria-label': `space-time diagram: ${d.title}`,
  })
  const axis = el('g', { class: 'axis', 'data-axis': 'time' }, svg)
  const bands = el('g', { class: 'bands' }, svg)
  const lines = el('g', { class: 'lines' }, svg)
  const arrows = el('g', { class: 'arrows' }, svg)
  const marks = el('g', { class: 'marks' }, svg)
  const top = 26
  const bottom = lay.height - 16
  const faults = drawFaults(d, lay, bands, top, bottom)
  const drawing: Drawing = {
    svg,
    events: new Map(),
    messages: new Map(),
    down: faults.down,
    partitions: faults.partitions,
    duplicates: new Map(),
    faults,
    now: el('line', { class: 'now', y1: 8, y2: lay.height - 4, x1: 0, x2: 0 }, svg),
    axis,
    range,
  }

  for (const p of d.processes) {
    const y = lay.y.get(p)!
    const g = el('g', { class: 'process', 'data-process': p }, lines)
    el('line', { x1: 70, y1: y, x2: lay.endX, y2: y }, g)
  }

  for (const seg of lanes) {
    const y = lay.y.get(seg.process)
    if (y === undefined) continue
    const x1 = lay.x[seg.fromSeq]!
    const x2 = seg.toSeq === undefined ? lay.endX : lay.x[seg.toSeq]!
    if (!reaches(x1, x2)) continue
    const rect = el(
      'rect',
      {
        class: `lane lane-${seg.state}`,
        'data-lane-state': seg.state,
        'data-lane-process': seg.process,
        x: x1,
        y: y + 6,
        width: Math.max(1, x2 - x1),
        height: 5,
      },
      bands,
    )
    el('title', {}, rect).textContent = `node ${seg.process}: ${seg.state}`
  }

  // Arrow and drop labels where the arrow leaves room for them and they overlap no other label;
  // on hover otherwise. Drops on a crashed receiver: one label per down band.
  const CHAR = 6.2
  const taken = new LabelSpace()
  const labelledBands = new Set<DownBand>()
  for (const m of d.messages) {
    const color = colors.get(m.type) ?? '#555'
    const y1 = lay.y.get(m.from)!
    const y2 = lay.y.get(m.to)!
    const x1 = m.send ? lay.x[m.send.seq]! : lay.x[m.seq]! - 2 * STEP
    let x2: number
    let yEnd = y2
    if (m.deliver) x2 = lay.x[m.deliver.seq]!
    else if (m.drop?.atReceiver) x2 = lay.x[m.drop.seq]!
    else if (m.drop) {
      // Dropped on the way: the cross stands 40% of the way to the receiver.
      x2 = Math.max(lay.x[m.drop.seq]!, x1 + 1.5 * STEP)
      yEnd = y1 + (y2 - y1) * 0.4
    } else x2 = lay.endX
    if (!reaches(x1, x2 + 8)) continue
    const g = el(
      'g',
      {
        class: `msg outcome-${m.outcome}${m.duplicated ? ' duplicated' : ''}${m.resendOf === undefined ? '' : ' resend'}`,
        'data-message': m.id,
        'data-outcome': m.outcome,
        'data-copy': m.copy,
        style: `--c:${color}`,
      },
      arrows,
    )
    el('line', { x1, y1, x2, y2: yEnd, class: 'hit' }, g)
    el('line', { x1, y1, x2, y2: yEnd, class: 'shaft' }, g)
    if (m.resendOf !== undefined) {
      // The link's retransmission of a dropped message: ↻ at its send.
      g.dataset.resend = m.resendOf
      el(
        'text',
        { x: x1 - 5, y: y1 - 7, class: 'resend-mark', 'text-anchor': 'end' },
        g,
      ).textContent = '↻'
    }
    if (m.outcome === 'drop') {
      el(
        'path',
        {
          d: `M${x2 - 5},${yEnd - 5}L${x2 + 5},${yEnd + 5}M${x2 + 5},${yEnd - 5}L${x2 - 5},${yEnd + 5}`,
          class: 'cross',
        },
        g,
      )
      const reason = m.drop!.reason
      const band = m.drop!.atReceiver ? downAt(d.down, m.to, m.drop!.seq) : undefined
      const shown = band
        ? !labelledBands.has(band) && taken.claim(x2 + 7, yEnd - 16, reason.length * CHAR, 12)
        : taken.claim(x2 + 7, yEnd - 16, reason.length * CHAR, 12)
      if (band && shown) labelledBands.add(band)
      el(
        'text',
        {
          x: x2 + 7,
          y: yEnd - 6,
          class: shown ? 'drop-label' : 'drop-label hover-only',
          'data-drop-label': shown ? 'shown' : 'hover',
        },
        g,
      ).textContent = reason
    } else {
      el('polygon', { points: head(x1, y1, x2, yEnd), class: 'head' }, g)
      if (m.outcome === 'in-flight')
        el('text', { x: x2 + 4, y: yEnd - 6, class: 'drop-label' }, g).textContent = 'in flight'
    }
    if (m.outcome !== 'drop') {
      const text = arrowLabel(m.type, fieldOf(m.send?.raw, 'msg'))
      const lx = (x1 + x2) / 2 + 3
      const ly = (y1 + yEnd) / 2 - 3
      const room =
        Math.hypot(x2 - x1, yEnd - y1) >= text.length * CHAR + 24 &&
        taken.claim(lx, ly - 10, text.length * CHAR, 12)
      const t = el(
        'text',
        {
          x: lx,
          y: ly,
          class: room ? 'msg-label' : 'msg-label hover-only',
          'data-arrow-label': room ? 'shown' : 'hover',
        },
        g,
      )
      t.textContent = text
    }
    drawing.messages.set(m, g)
  }

  for (const dup of d.duplicates) {
    if (!reaches(lay.x[dup.seq]!, lay.x[dup.seq]!)) continue
    const g = el(
      'g',
      {
        class: 'dup',
        'data-duplicate': dup.messageId,
        transform: `translate(${lay.x[dup.seq]},${lay.y.get(dup.from)! - 12})`,
      },
      marks,
    )
    el('text', { 'text-anchor': 'middle', y: 4 }, g).textContent = '⧉'
    el('title', {}, g).textContent = `message #${dup.messageId} duplicated by the network`
    drawing.duplicates.set(dup, g)
  }

  // A non-linearizable history's operations, over the marks (the trace's `historyCheck`).
  drawHistories(d, lay, el('g', { class: 'histories' }, svg))

  // Process names on top of everything, in a column the page keeps in sight when scrolled.
  const labels = el('g', { class: 'labels' })
  el('rect', { x: 0, y: 0, width: 68, height: lay.height, class: 'labels-bg' }, labels)
  for (const p of d.processes) {
    el(
      'text',
      { x: 62, y: lay.y.get(p)! + 4, 'text-anchor': 'end', class: 'process-label' },
      labels,
    ).textContent = d.format === 'shiviz' ? `host ${p}` : `node ${p}`
  }
  drawing.labels = labels

  const labelEnd = new Map<string, number>()
  for (const e of d.events) {
    if (!reaches(lay.x[e.seq]! - 8, lay.x[e.seq]! + 8)) continue
    const g = el(
      'g',
      {
        class: `ev kind-${e.kind}`,
        'data-event': e.id,
        'data-kind': e.kind,
        transform: `translate(${lay.x[e.seq]},${lay.y.get(e.process)})`,
        tabindex: 0,
      },
      marks,
    )
    el('circle', { r: 8, class: 'hit' }, g)
    drawMark(e.kind, g, e.messageType ? colors.get(e.messageType) : undefined)
    const label = markLabel(e)
    if (label !== undefined) {
      // Shown unless it would run into the previous label on its line; on hover then.
      const x = lay.x[e.seq]!
      const room = x >= (labelEnd.get(e.process) ?? Number.NEGATIVE_INFINITY)
      if (room) labelEnd.set(e.process, x + label.length * CHAR + 6)
      el(
        'text',
        {
          x: 0,
          y: -9,
          'text-anchor': 'start',
          class: room ? 'mark-label' : 'mark-label hover-only',
          'data-mark-label': room ? 'shown' : 'hover',
        },
        g,
      ).textContent = label
    }
    drawing.events.set(e, g)
  }
  svg.appendChild(labels)
  return drawing
}
