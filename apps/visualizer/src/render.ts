/// <reference lib="dom" />
import type { LaneSegment } from './annotations.js'
import type { Tick } from './axis.js'
import { drawFaults, type Faults } from './bands.js'
import { drawHistories } from './history-view.js'
import type { Layout } from './layout.js'
import type {
  Diagram,
  DownBand,
  DuplicateMark,
  PartitionBand,
  VizEvent,
  VizMessage,
} from './model.js'
import {
  type DrawRange,
  newPainter,
  type Painter,
  paintDuplicate,
  paintEvent,
  paintLane,
  paintMessage,
} from './paint.js'
import { el } from './svg.js'

export { partitionLabel } from './bands.js'
export { typeColors } from './colors.js'
export { drawMark } from './mark-shapes.js'
export type { DrawRange } from './paint.js'

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
  /** What drew the items, and what it took doing so, for a drawing grown later (`paint.ts`). */
  painter: Painter
  /** Each state lane drawn and its rectangle, in the order drawn. */
  lanes: Array<{ seg: LaneSegment; rect: SVGRectElement }>
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

/**
 * The whole diagram as SVG: bands (partitions, processes down), process lines, message arrows,
 * event marks. Every process line carries `data-process`, every arrow `data-message` (the trace's
 * message id), every event mark `data-event` (its index in the input). With a `range`, only the
 * marks, arrows and lanes that reach into it are drawn (bands and lines always are): a large run
 * costs what the view shows. Each item is drawn by `paint.ts`; with `labelsOverAll`, which
 * labels show is decided over every item, drawn or not, and with `inFlightBare` an arrow
 * in flight is drawn as its shafts alone and takes no room for a label (see `Painter`).
 */
export function renderDiagram(
  d: Diagram,
  lay: Layout,
  colors: Map<string, string>,
  lanes: readonly LaneSegment[] = [],
  range?: DrawRange,
  options: { labelsOverAll?: boolean; inFlightBare?: boolean } = {},
): Drawing {
  const painter = newPainter(d, lay, colors, range, options)
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
    painter,
    lanes: [],
  }

  for (const p of d.processes) {
    const y = lay.y.get(p)!
    const g = el('g', { class: 'process', 'data-process': p }, lines)
    el('line', { x1: 70, y1: y, x2: lay.endX, y2: y }, g)
  }

  for (const seg of lanes) {
    const rect = paintLane(painter, seg, bands)
    if (rect) drawing.lanes.push({ seg, rect })
  }

  for (const m of d.messages) {
    const drawn = paintMessage(painter, m, arrows)
    if (!drawn) continue
    drawing.messages.set(m, drawn.g)
  }

  for (const dup of d.duplicates) {
    const g = paintDuplicate(painter, dup, marks)
    if (g) drawing.duplicates.set(dup, g)
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

  for (const e of d.events) {
    const g = paintEvent(painter, e, marks)
    if (g) drawing.events.set(e, g)
  }
  svg.appendChild(labels)
  return drawing
}
