/// <reference lib="dom" />
/**
 * The line taken, drawn once and shown up to a step, as the visualizer's playback shows a run:
 * what comes after the step is hidden (`off-time`), not rebuilt. Building the diagram of a
 * 5,000-event trace and its layout costs tens of ms, so it happens only when the line itself
 * changes (a new step at the live end, a branch); moving along it toggles classes. On a run too
 * large to draw whole (the visualizer draws only around the view above `DRAW_ALL_BELOW` items),
 * the stretch drawn is chosen by blocks of the pane's width, so the markup at a step depends on
 * the line and the step only: back then forward returns to the same SVG.
 */
import type { TraceDocument, TraceEvent } from '@sd/transport'
import { stateLanes } from '@sd/visualizer/src/annotations.js'
import { ticks, timeScale } from '@sd/visualizer/src/axis.js'
import { showFaultsAt } from '@sd/visualizer/src/bands.js'
import { type Layout, LEFT, layout } from '@sd/visualizer/src/layout.js'
import { wireMarks } from '@sd/visualizer/src/mark-events.js'
import type { Diagram } from '@sd/visualizer/src/model.js'
import { type Drawing, drawAxis, renderDiagram, typeColors } from '@sd/visualizer/src/render.js'
import type { Tooltip } from '@sd/visualizer/src/tooltip.js'
import { traceToDiagram } from '@sd/visualizer/src/trace.js'
import { DRAW_ALL_BELOW, screenLayout } from '@sd/visualizer/src/viewport.js'
import { markStep, parts, pinLabels, type StepMarks } from './draw.js'

export interface LineInput extends StepMarks {
  seed: number | string
  nodes: readonly (string | number)[]
  /** The whole line taken (the trace at its last step), read only when the line changed. */
  line: () => readonly TraceEvent[]
  /** Its length in trace entries. */
  lineLength: number
  /** Changes whenever the line does (another run, a new step at the live end, a branch). */
  key: string
  /** How many of the line's trace entries the step shown has. */
  shown: number
}

interface Line {
  key: string
  height: number
  diagram: Diagram
  base: Layout
  lay: Layout
  /** `nowOf[k]`: the last timeline seq of the first k trace entries (-1: none). */
  nowOf: Int32Array
  drawn?: { block: number; drawing: Drawing; lanes: LaneRect[]; shafts: Shaft[] }
}

/** A state lane's rectangle and its extent in the whole line. */
interface LaneRect {
  rect: SVGRectElement
  x: number
  width: string
}

/** An arrow's lines and where they end in the whole line (cut at the step while in flight). */
interface Shaft {
  g: SVGGElement
  sendSeq: number
  seq: number
  lines: SVGLineElement[]
  x1: number
  y1: number
  x2: string
  y2: string
}

let current: Line | undefined

/** Another drawing took the canvas (two runs compared): the line is drawn afresh next time. */
export function forgetLine(): void {
  current = undefined
}

/** Draws `input.line` into `canvas` (once per line and stretch) and shows it up to `input.shown`. */
export function showLine(
  canvas: HTMLElement,
  input: LineInput,
  tooltip: Tooltip,
): { drawing: Drawing; diagram: Diagram; redrawn: boolean } {
  const t0 = performance.now()
  const width = Math.max(200, canvas.clientWidth)
  const height = Math.max(160, canvas.clientHeight - 16)
  let line = current
  if (!line || line.key !== input.key || line.height !== height) {
    line = current = build(input, height)
    parts.diagram = performance.now() - t0
  } else parts.diagram = 0
  const t1 = performance.now()
  const { diagram, lay } = line
  const end = diagram.timeline.length - 1
  const atEnd = input.shown >= input.lineLength
  const now = atEnd ? end : line.nowOf[input.shown]!
  const nowX = now < 0 ? (lay.x[0] ?? LEFT) : lay.x[now]!
  const scrollLeft = Math.max(
    0,
    atEnd ? lay.width - width : Math.min(lay.width - width, nowX + 80 - width),
  )
  const items = diagram.events.length + diagram.messages.length
  const block = items < DRAW_ALL_BELOW ? 0 : Math.floor(scrollLeft / width)
  let redrawn = false
  if (!line.drawn || line.drawn.block !== block) {
    line.drawn = render(canvas, line, block, width, items < DRAW_ALL_BELOW, tooltip)
    redrawn = true
  }
  const t2 = performance.now()
  const { drawing, lanes, shafts } = line.drawn
  for (const [e, g] of drawing.events) g.classList.toggle('off-time', e.seq > now)
  for (const [dup, g] of drawing.duplicates) g.classList.toggle('off-time', dup.seq > now)
  for (const s of shafts) cutShaft(s, now, nowX)
  for (const l of lanes) {
    l.rect.classList.toggle('off-time', l.x > nowX)
    const full = Number(l.width)
    l.rect.setAttribute(
      'width',
      l.x + full <= nowX || atEnd ? l.width : String(Math.max(1, nowX - l.x)),
    )
  }
  showFaultsAt(drawing.faults, lay, now, end)
  markStep(drawing, input)
  tooltip.hide()
  if (canvas.firstChild !== drawing.svg) canvas.replaceChildren(drawing.svg)
  canvas.scrollLeft = scrollLeft
  pinLabels(canvas, drawing)
  canvas.onscroll = () => pinLabels(canvas, drawing)
  parts.layoutAndSvg = t2 - t1
  parts.marksAndDom = performance.now() - t2
  return { drawing, diagram, redrawn }
}

/** The line's diagram and layout, and where each prefix of the trace ends on the timeline. */
function build(input: LineInput, height: number): Line {
  const events = input.line()
  const doc: TraceDocument = {
    format: 'sd-trace',
    version: 1,
    seed: input.seed,
    nodes: [...input.nodes],
    events: [...events],
  }
  const diagram = traceToDiagram(doc)
  const base = layout(diagram, 'compact')
  const lay = screenLayout(base, diagram.processes, 1, height)
  // Every drawn item's trace index and seq; a prefix shows the seqs its entries made.
  const seqOf = new Int32Array(events.length + 1).fill(-1)
  const note = (id: number | undefined, seq: number | undefined) => {
    if (id !== undefined && seq !== undefined && id < events.length)
      seqOf[id + 1] = Math.max(seqOf[id + 1]!, seq)
  }
  for (const e of diagram.events) note(e.id, e.seq)
  for (const m of diagram.messages) if (m.drop) note(m.drop.id, m.drop.seq)
  for (const d of diagram.duplicates) note(d.id, d.seq)
  for (const p of diagram.partitions) {
    note(p.id, p.fromSeq)
    note(p.healId, p.toSeq)
  }
  for (const l of diagram.losses) {
    note(l.id, l.fromSeq)
    note(l.endId, l.toSeq)
  }
  for (const m of diagram.marks) note(m.id, m.seq)
  for (let k = 1; k < seqOf.length; k++) seqOf[k] = Math.max(seqOf[k]!, seqOf[k - 1]!)
  return { key: input.key, height, diagram, base, lay, nowOf: seqOf }
}

/** The SVG of the line, whole or the stretch of blocks around `block`, with its axis. */
function render(
  canvas: HTMLElement,
  line: Line,
  block: number,
  width: number,
  whole: boolean,
  tooltip: Tooltip,
): NonNullable<Line['drawn']> {
  const { diagram, lay, base } = line
  const range = whole ? undefined : { from: (block - 1) * width, to: (block + 2.5) * width }
  const drawing = renderDiagram(
    diagram,
    lay,
    typeColors(diagram.messageTypes),
    stateLanes(diagram),
    range,
  )
  drawing.svg.setAttribute('width', String(Math.ceil(lay.width)))
  drawing.svg.setAttribute('height', String(Math.ceil(lay.height)))
  drawing.now.remove()
  const times = timeScale(diagram.timeline, base.x)
  const from = whole ? LEFT : Math.max(LEFT, (block - 1) * width)
  const to = whole ? base.endX : Math.min(base.endX, (block + 2.5) * width)
  drawAxis(drawing.axis, ticks(times, from, to, 110), lay.height)
  wireMarks(
    diagram,
    drawing,
    tooltip,
    () => {},
    () => undefined,
  )
  const lanes: LaneRect[] = []
  for (const rect of drawing.svg.querySelectorAll<SVGRectElement>('rect.lane'))
    lanes.push({
      rect,
      x: Number(rect.getAttribute('x')),
      width: rect.getAttribute('width') ?? '1',
    })
  const shafts: Shaft[] = []
  for (const [m, g] of drawing.messages) {
    const lines = [...g.querySelectorAll<SVGLineElement>('line')]
    const first = lines[0]
    if (!first) continue
    shafts.push({
      g,
      sendSeq: m.send?.seq ?? m.seq,
      // In flight at the line's end: cut at every step before the end, whole at it.
      seq: m.outcome === 'in-flight' ? diagram.timeline.length : m.seq,
      lines,
      x1: Number(first.getAttribute('x1')),
      y1: Number(first.getAttribute('y1')),
      x2: first.getAttribute('x2') ?? '0',
      y2: first.getAttribute('y2') ?? '0',
    })
  }
  canvas.replaceChildren(drawing.svg)
  return { block, drawing, lanes, shafts }
}

/**
 * An arrow at step `now`: hidden before its send, whole from its delivery or drop, and between
 * them drawn as far as `nowX` (in flight at the step), without its head and labels.
 */
function cutShaft(s: Shaft, now: number, nowX: number): void {
  s.g.classList.toggle('off-time', s.sendSeq > now)
  const flying = s.sendSeq <= now && now < s.seq
  s.g.classList.toggle('flying', flying)
  let x2 = s.x2
  let y2 = s.y2
  if (flying) {
    const fx = Number(s.x2)
    const f = fx > s.x1 ? Math.min(1, Math.max(0, (nowX - s.x1) / (fx - s.x1))) : 0
    x2 = String(s.x1 + (fx - s.x1) * f)
    y2 = String(s.y1 + (Number(s.y2) - s.y1) * f)
  }
  for (const l of s.lines) {
    l.setAttribute('x2', x2)
    l.setAttribute('y2', y2)
  }
}
