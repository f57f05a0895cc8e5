/// <reference lib="dom" />
/**
 * The run as the visualizer draws it: its own modules (trace to diagram, layout, state lanes,
 * SVG), imported, not copied. The trace drawn is the run's up to the step shown; the marks of
 * that step are ringed (`data-latest`), those of the step that first broke the invariant are
 * marked `data-violation`.
 */
import type { TraceDocument, TraceEvent } from '@sd/transport'
import { stateLanes } from '@sd/visualizer/src/annotations.js'
import { ticks, timeScale } from '@sd/visualizer/src/axis.js'
import { diffRuns } from '@sd/visualizer/src/compare.js'
import { LEFT, layout } from '@sd/visualizer/src/layout.js'
import { wireMarks } from '@sd/visualizer/src/mark-events.js'
import type { Diagram } from '@sd/visualizer/src/model.js'
import { type Drawing, drawAxis, renderDiagram, typeColors } from '@sd/visualizer/src/render.js'
import type { Tooltip } from '@sd/visualizer/src/tooltip.js'
import { traceToDiagram } from '@sd/visualizer/src/trace.js'
import { drawRange, screenLayout } from '@sd/visualizer/src/viewport.js'

/** The step shown and the step that first broke the invariant, marked on the drawing. */
export interface StepMarks {
  /** Trace indexes of the step shown. */
  latest: { from: number; to: number }
  /** Trace indexes of the step that first broke the invariant, when it is shown. */
  violation?: { from: number; to: number; message: string }
}

export interface DrawInput extends StepMarks {
  seed: number | string
  nodes: readonly (string | number)[]
  events: readonly TraceEvent[]
}

/**
 * Where the last drawing's time went, in ms (the README's figures); of `diagram`, a branch's
 * diagram built again (`cutBuild`) and its drawing brought back to it (`cutSync`).
 */
export const parts = { diagram: 0, cutBuild: 0, cutSync: 0, layoutAndSvg: 0, marksAndDom: 0 }

/**
 * Draws into `canvas` at 100% scale, scrolled to the latest events, the process names kept at
 * the left edge; hovering a mark or an arrow shows its details (the visualizer's tooltip).
 */
export function drawRun(
  canvas: HTMLElement,
  input: DrawInput,
  tooltip: Tooltip,
): { drawing: Drawing; diagram: Diagram } {
  const doc: TraceDocument = {
    format: 'sd-trace',
    version: 1,
    seed: input.seed,
    nodes: [...input.nodes],
    events: [...input.events],
  }
  const t0 = performance.now()
  const diagram = traceToDiagram(doc)
  const t1 = performance.now()
  const base = layout(diagram, 'compact')
  const width = Math.max(200, canvas.clientWidth)
  const height = Math.max(160, canvas.clientHeight - 16)
  const lay = screenLayout(base, diagram.processes, 1, height)
  const scrollLeft = Math.max(0, lay.width - width)
  const items = diagram.events.length + diagram.messages.length
  const drawing = renderDiagram(
    diagram,
    lay,
    typeColors(diagram.messageTypes),
    stateLanes(diagram),
    drawRange(items, scrollLeft, width),
  )
  const t2 = performance.now()
  drawing.svg.setAttribute('width', String(Math.ceil(lay.width)))
  drawing.svg.setAttribute('height', String(Math.ceil(lay.height)))
  drawing.now.remove()
  // At 100% scale the layout's x is the screen's: the time axis around what is in sight.
  const times = timeScale(diagram.timeline, base.x)
  const from = Math.max(LEFT, scrollLeft - width / 2)
  drawAxis(drawing.axis, ticks(times, from, Math.min(base.endX, from + width * 2), 110), lay.height)
  markStep(drawing, input)
  tooltip.hide()
  wireMarks(
    diagram,
    drawing,
    tooltip,
    () => {},
    () => undefined,
  )
  canvas.replaceChildren(drawing.svg)
  canvas.scrollLeft = scrollLeft
  pinLabels(canvas, drawing)
  canvas.onscroll = () => pinLabels(canvas, drawing)
  const t3 = performance.now()
  parts.diagram = t1 - t0
  parts.cutBuild = 0
  parts.cutSync = 0
  parts.layoutAndSvg = t2 - t1
  parts.marksAndDom = t3 - t2
  return { drawing, diagram }
}

/**
 * Rings the marks of the step shown (`data-latest`) and marks those of the step that first broke
 * the invariant (`data-violation`), clearing what an earlier step marked on the same drawing.
 */
export function markStep(drawing: Drawing, input: StepMarks): void {
  const inside = (id: number, r: { from: number; to: number }) => id >= r.from && id < r.to
  const marks: Array<{ id: number; g: SVGGElement }> = []
  for (const [event, g] of drawing.events) marks.push({ id: event.id, g })
  // A drop is drawn on its message's arrow, not as a mark: the arrow stands for it.
  for (const [m, g] of drawing.messages) if (m.drop) marks.push({ id: m.drop.id, g })
  for (const { id, g } of marks) {
    if (inside(id, input.latest)) g.dataset.latest = ''
    else delete g.dataset.latest
    if (g.dataset.violation !== undefined) {
      delete g.dataset.violation
      g.classList.remove('violation')
    }
  }
  const v = input.violation
  if (v) {
    let hit = marks.filter(({ id }) => inside(id, v))
    // A step that drew nothing (the invariant judged the end): the last mark before it.
    if (hit.length === 0) {
      const before = marks.filter(({ id }) => id < v.to).sort((a, b) => b.id - a.id)[0]
      hit = before ? [before] : []
    }
    for (const { g } of hit) {
      g.dataset.violation = v.message
      g.classList.add('violation')
    }
  }
}

/** Keeps the process names at the pane's left edge, whatever the horizontal scroll. */
export function pinLabels(canvas: HTMLElement, drawing: Drawing): void {
  pinLabelsAt(drawing, canvas.scrollLeft)
}

/** The process names kept at the left edge of a pane scrolled to `scrollLeft`. */
export function pinLabelsAt(drawing: Drawing, scrollLeft: number): void {
  drawing.labels?.setAttribute('transform', `translate(${scrollLeft},0)`)
}

/**
 * Rings the events one run has and the other has not (the visualizer's comparison of two runs:
 * a longest common subsequence per pair of lines), `data-diff="a"` in the run shown, `"b"` in
 * the earlier line; returns how many differ.
 */
export function markDifferences(
  a: { drawing: Drawing; diagram: Diagram },
  b: { drawing: Drawing; diagram: Diagram },
): number {
  const diff = diffRuns(a.diagram, b.diagram)
  for (const [side, run, only] of [
    ['a', a, diff.onlyA],
    ['b', b, diff.onlyB],
  ] as const)
    for (const [e, g] of run.drawing.events)
      if (only.has(e)) {
        g.dataset.diff = side
        g.classList.add('diff')
      }
  return diff.total
}
