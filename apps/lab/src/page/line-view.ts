/// <reference lib="dom" />
/**
 * The line taken, drawn once and shown up to a step, as the visualizer's playback shows a run:
 * what comes after the step is hidden (`off-time`), not rebuilt. A step at the live end makes the
 * line longer: its diagram and layout grow by the new entries (`DiagramGrower`, `growLayout`),
 * and the drawing is brought along (`line-grow.ts`): the new marks, arrows and lanes drawn, those
 * that changed drawn again, to the SVG a fresh drawing of the longer line would be. A branch is
 * the line before it up to the branch's step, then its own steps: the drawing is cut back to the
 * entries they share (`cutBack`), then grown. Another run is built and drawn afresh. On a run too large to draw whole (the
 * visualizer draws only around the view above `DRAW_ALL_BELOW` items), the stretch drawn is
 * chosen by blocks of half the pane's width, and a step into another block brings the drawing along
 * too, so the markup at a step depends on the line and the step only: back then forward returns
 * to the same SVG. The pane scrolled by hand out of the stretch brings the drawing along to the
 * view until the next step (`followReader`).
 */
import type { TraceEvent } from '@sd/transport'
import { stateLanes } from '@sd/visualizer/src/annotations.js'
import { ticks, timeScale } from '@sd/visualizer/src/axis.js'
import { showFaultsAt } from '@sd/visualizer/src/bands.js'
import {
  compactLayout,
  growLayout,
  type Layout,
  type LayoutFold,
  LEFT,
} from '@sd/visualizer/src/layout.js'
import { wireMarks } from '@sd/visualizer/src/mark-events.js'
import type { Diagram } from '@sd/visualizer/src/model.js'
import type { DrawRange } from '@sd/visualizer/src/paint.js'
import { type Drawing, drawAxis, renderDiagram, typeColors } from '@sd/visualizer/src/render.js'
import type { Tooltip } from '@sd/visualizer/src/tooltip.js'
import { traceToDiagram } from '@sd/visualizer/src/trace.js'
import { DiagramGrower } from '@sd/visualizer/src/trace-grow.js'
import type { GrowerState } from '@sd/visualizer/src/trace-grow-state.js'
import { DRAW_ALL_BELOW, screenLayout } from '@sd/visualizer/src/viewport.js'
import { markStep, parts, type StepMarks } from './draw.js'
import { orderArrows, type Synced, sizeSvg, sync, syncedOf } from './line-grow.js'
import { nowOfEntries } from './now-of.js'
import { pinOnScroll, scrolledTo, scrollPane } from './pane-scroll.js'
import { cutShaft, type Shaft, shaftsOf } from './shafts.js'

export interface LineInput extends StepMarks {
  seed: number | string
  nodes: readonly (string | number)[]
  /** The whole line taken (the trace at its last step), read only when the line changed. */
  line: () => readonly TraceEvent[]
  /** Its length in trace entries. */
  lineLength: number
  /** Names the line (another run, a branch): steps at its live end only make it longer. */
  key: string
  /**
   * The line this one branched from and how many trace entries they share: its drawing, if it
   * is the one on the canvas, is cut back to them and brought along instead of drawn afresh.
   */
  prefix?: { key: string; length: number }
  /** How many of the line's trace entries the step shown has. */
  shown: number
}

interface Line {
  key: string
  height: number
  /** Trace entries drawn (the line's length when drawn). */
  length: number
  grower: DiagramGrower
  /** The grower's state every `CHECKPOINT` entries or so, rising: a branch grows from one. */
  saved: GrowerState[]
  fold: LayoutFold
  diagram: Diagram
  base: Layout
  /** The layout on screen (100% scale). */
  lay: Layout
  /** `nowOf[k]`: the last timeline seq of the first k trace entries (-1: none). */
  nowOf: Int32Array
  drawn?: {
    range?: DrawRange
    /** The line's length when drawn or last brought along. */
    length: number
    synced: Synced
    lanes: LaneRect[]
    shafts: Shaft[]
  }
}

/** A state lane's rectangle and its extent in the whole line. */
interface LaneRect {
  rect: SVGRectElement
  x: number
  width: string
  /** The width it was last shown with. */
  shown?: string
}

/** Whether each mark and lane was last hidden (`off-time`): written only when that changes. */
const offOf = new WeakMap<Element, boolean>()

function showAt(el: Element, off: boolean): void {
  if (offOf.get(el) === off) return
  el.classList.toggle('off-time', off)
  offOf.set(el, off)
}

let current: Line | undefined
/** What the line was last shown with: the reader's scroll brings the drawing along from it. */
let lastShown: { input: LineInput; tooltip: Tooltip } | undefined

/**
 * Trace entries between two saved states of the line's grower: a branch grows at most this many
 * entries again (a few ms) instead of the whole line up to its step; a save costs next to nothing.
 */
const CHECKPOINT = 400

/** Lanes already read off their rectangles, likewise. */
const laneOf = new WeakMap<SVGRectElement, LaneRect>()

/** Another drawing took the canvas (two runs compared): the line is drawn afresh next time. */
export function forgetLine(): void {
  current = undefined
  lastShown = undefined
}

/**
 * The reader scrolled the pane by hand: when the view left the stretch drawn, the drawing is
 * brought along to the stretch around the view, as a step into another stretch brings it (the step
 * shown stays, the pane is not scrolled). The next step brings it back to the step's own view.
 * True when it was brought along.
 */
export function followReader(canvas: HTMLElement): boolean {
  const range = current?.drawn?.range
  if (range === undefined || lastShown === undefined) return false
  const readerLeft = canvas.scrollLeft
  if (stretchOf(readerLeft, Math.max(200, canvas.clientWidth)).from === range.from) return false
  showLine(canvas, lastShown.input, lastShown.tooltip, readerLeft)
  return true
}

/** How the drawing was brought to the step: only shown (`false`), brought along, or drawn afresh. */
export type Redrawn = 'false' | 'grown' | 'true'

/**
 * Draws `input.line` into `canvas` (afresh for another line; brought along when the line grew at
 * its live end or another stretch comes into view) and shows it up to `input.shown`.
 */
export function showLine(
  canvas: HTMLElement,
  input: LineInput,
  tooltip: Tooltip,
  /** Where the reader scrolled the pane (`followReader`): the stretch is drawn around it. */
  readerLeft?: number,
): { drawing: Drawing; diagram: Diagram; redrawn: Redrawn } {
  const t0 = performance.now()
  lastShown = { input, tooltip }
  const width = Math.max(200, canvas.clientWidth)
  const height = Math.max(160, canvas.clientHeight - 16)
  let line = current
  let cut = false
  parts.cutBuild = 0
  parts.cutSync = 0
  if (!line || line.key !== input.key || line.height !== height || input.lineLength < line.length) {
    const branch = cutBack(line, input, height, tooltip, canvas, width)
    cut = branch?.drawn !== undefined
    line = current = branch ?? build(input, height)
  }
  if (input.lineLength > line.length && !extend(line, input)) line = current = build(input, height)
  parts.diagram = performance.now() - t0
  const t1 = performance.now()
  const { diagram, lay } = line
  const end = diagram.timeline.length - 1
  const { atEnd, now, nowX, scrollLeft } = viewOf(line, input, width)
  const items = diagram.events.length + diagram.messages.length
  const range = items < DRAW_ALL_BELOW ? undefined : stretchOf(readerLeft ?? scrollLeft, width)
  canvas.dataset.stretch = range === undefined ? '' : `${range.from} ${range.to}`
  let redrawn: Redrawn = cut ? 'grown' : 'false'
  const drawn = line.drawn
  const moved =
    drawn !== undefined &&
    (drawn.length !== line.length ||
      drawn.range?.from !== range?.from ||
      drawn.range?.to !== range?.to)
  // At the live end the view moves with the line's end: the drawing made wider and the pane
  // scrolled first, while the page is laid out. After the drawing changed, scrolling would make
  // the browser lay out all the step changed there and then (9 ms a step on the 5,000-event run),
  // and again once the panels changed.
  if (
    drawn &&
    moved &&
    readerLeft === undefined &&
    canvas.firstChild === drawn.synced.drawing.svg &&
    !scrolledTo(canvas, scrollLeft)
  ) {
    sizeSvg(drawn.synced.drawing.svg, lay)
    scrollPane(canvas, scrollLeft)
  }
  if (drawn && moved && sync(drawn.synced, diagram, lay, range, tooltip)) {
    drawAxisOf(line, drawn.synced.drawing, range)
    line.drawn = { ...drawn, range, length: line.length, ...shapes(line, drawn.synced.drawing) }
    redrawn = 'grown'
  } else if (!drawn || moved) {
    line.drawn = render(canvas, line, range, tooltip)
    redrawn = 'true'
  }
  const t2 = performance.now()
  const { synced, lanes, shafts, range: drawnRange } = line.drawn!
  const { drawing } = synced
  // Each written only when it changes: a step along the line changes a few.
  for (const [e, g] of drawing.events) showAt(g, e.seq > now)
  for (const [dup, g] of drawing.duplicates) showAt(g, dup.seq > now)
  for (const s of shafts) cutShaft(s, now, nowX, drawnRange?.from)
  for (const l of lanes) {
    showAt(l.rect, l.x > nowX)
    const full = Number(l.width)
    const width = l.x + full <= nowX || atEnd ? l.width : String(Math.max(1, nowX - l.x))
    // A presentation attribute: written, the browser works out the lane's style again.
    if (width !== l.shown) {
      l.rect.setAttribute('width', width)
      l.shown = width
    }
  }
  showFaultsAt(drawing.faults, lay, now, end)
  markStep(drawing, input)
  tooltip.hide()
  // Scrolled only when the view moves (a branch was scrolled in `cutBack`): setting `scrollLeft`
  // lays the page out there and then (5 ms on the 5,000-event run), the next frame does anyway.
  const replaced = canvas.firstChild !== drawing.svg
  if (replaced) canvas.replaceChildren(drawing.svg)
  // The reader's scroll stays where the reader put it.
  if (
    readerLeft === undefined &&
    (redrawn === 'true' || replaced || !scrolledTo(canvas, scrollLeft))
  )
    scrollPane(canvas, scrollLeft)
  pinOnScroll(canvas, drawing)
  parts.layoutAndSvg = t2 - t1
  parts.marksAndDom = performance.now() - t2
  return { drawing, diagram, redrawn }
}

/**
 * The stretch drawn for a view scrolled to `scrollLeft`: chosen by blocks of half the pane's
 * width, it holds the view and a quarter of it either side, twice the pane's width in all (the
 * browser styles, lays out and paints every element drawn after a step that changes many: a
 * stretch three and a half panes wide took it 25 ms on the 5,000-event run).
 */
function stretchOf(scrollLeft: number, width: number): DrawRange {
  const half = width / 2
  const block = Math.floor(scrollLeft / half)
  return { from: (block - 0.5) * half, to: (block + 3.5) * half }
}

/** The step shown on `line`: its last timeline seq, where it stands, where the pane scrolls to. */
function viewOf(
  line: Line,
  input: LineInput,
  width: number,
): { atEnd: boolean; now: number; nowX: number; scrollLeft: number } {
  const { diagram, lay } = line
  const atEnd = input.shown >= input.lineLength
  const now = atEnd ? diagram.timeline.length - 1 : line.nowOf[input.shown]!
  const nowX = now < 0 ? (lay.x[0] ?? LEFT) : lay.x[now]!
  const scrollLeft = Math.max(
    0,
    atEnd ? lay.width - width : Math.min(lay.width - width, nowX + 80 - width),
  )
  return { atEnd, now, nowX, scrollLeft }
}

/**
 * A branch of the line drawn: the line's diagram built again up to the entries both share, and
 * the drawing kept, to be brought to it (`sync` keeps the items of the shared entries drawn the
 * same way, removes the others) and then grown by the branch's own steps. Undefined when the line
 * drawn is not the one branched from.
 */
function cutBack(
  old: Line | undefined,
  input: LineInput,
  height: number,
  tooltip: Tooltip,
  canvas: HTMLElement,
  width: number,
): Line | undefined {
  const { prefix } = input
  if (!old?.drawn || !prefix || prefix.key !== old.key || old.height !== height) return undefined
  if (prefix.length > old.length || prefix.length > input.lineLength) return undefined
  const t0 = performance.now()
  const line = build(input, height, prefix.length, old.saved)
  const t1 = performance.now()
  parts.cutBuild = t1 - t0
  // Scrolled to the branch's step before the drawing changes, while the page is laid out: after,
  // scrolling would lay it out again there and then, which the next frame does anyway.
  if (prefix.length === input.lineLength && canvas.firstChild === old.drawn.synced.drawing.svg) {
    const { scrollLeft } = viewOf(line, input, width)
    if (!scrolledTo(canvas, scrollLeft)) scrollPane(canvas, scrollLeft)
  }
  // Brought to the shared entries first: past them the same trace index is another entry.
  const { synced, range } = old.drawn
  if (
    line.grower.length === prefix.length &&
    sync(synced, line.diagram, line.lay, range, tooltip)
  ) {
    drawAxisOf(line, synced.drawing, range)
    line.drawn = old.drawn
    line.drawn = { ...old.drawn, length: line.length, ...shapes(line, synced.drawing) }
  }
  parts.cutSync = performance.now() - t1
  return line
}

/**
 * The line's diagram and layout (of its first `upTo` entries), and where each prefix of the
 * trace ends on the timeline. From the last of `saved` (states of a line this one shares them
 * with) within the entries, if any; its grower's state saved along the way.
 */
function build(
  input: LineInput,
  height: number,
  upTo = input.lineLength,
  saved: readonly GrowerState[] = [],
): Line {
  const all = input.line()
  const events = upTo < all.length ? all.slice(0, upTo) : all
  const kept = saved.filter((s) => s.read <= upTo)
  const from = kept.at(-1)
  let grower =
    (from && DiagramGrower.restore([...input.nodes], input.seed, from)) ??
    new DiagramGrower([...input.nodes], input.seed)
  if (grower.length === 0) kept.length = 0
  const grown = growSaving(grower, events, kept)
  if (!grown) {
    grower = new DiagramGrower([...input.nodes], input.seed)
    kept.length = 0
  }
  // A trace that goes back in time is drawn as the visualizer reads it, afresh at every step.
  const diagram = grown
    ? grower.diagram()
    : traceToDiagram({ seed: input.seed, nodes: [...input.nodes], events: [...events] })
  const { layout: base, fold } = compactLayout(diagram)
  return {
    key: input.key,
    height,
    length: upTo,
    grower,
    saved: kept,
    fold,
    diagram,
    base,
    lay: screenLayout(base, diagram.processes, 1, height),
    nowOf: nowOfEntries(diagram, upTo),
  }
}

/** The line grown to `input.line()` (its steps added at the live end); false if it cannot be. */
function extend(line: Line, input: LineInput): boolean {
  if (!growSaving(line.grower, input.line(), line.saved)) return false
  const diagram = line.grower.diagram()
  line.diagram = diagram
  line.base = growLayout(line.fold, diagram)
  line.lay = screenLayout(line.base, diagram.processes, 1, line.height)
  line.length = input.lineLength
  line.nowOf = nowOfEntries(diagram, input.lineLength)
  return true
}

/**
 * Grows `grower` to `events` by stretches, saving its state into `saved` every `CHECKPOINT`
 * entries (a run to its end grows the line by thousands at once); false if it cannot grow.
 */
function growSaving(
  grower: DiagramGrower,
  events: readonly TraceEvent[],
  saved: GrowerState[],
): boolean {
  for (
    let k = (saved.at(-1)?.read ?? 0) + CHECKPOINT;
    k < events.length;
    k = Math.max(k, grower.length) + CHECKPOINT
  ) {
    if (k <= grower.length) continue
    if (!grower.grow(events.slice(0, k))) return false
    saved.push(grower.save())
  }
  return grower.grow(events)
}

/** The SVG of the line, whole or the stretch `range`, with its axis. */
function render(
  canvas: HTMLElement,
  line: Line,
  range: DrawRange | undefined,
  tooltip: Tooltip,
): NonNullable<Line['drawn']> {
  const { diagram, lay } = line
  // Labels decided over the whole line: a stretch drawn later is brought along item by item.
  const drawing = renderDiagram(
    diagram,
    lay,
    typeColors(diagram.messageTypes),
    stateLanes(diagram),
    range,
    // Arrows in flight are drawn bare (cut at the step: their heads and labels would not show).
    { labelsOverAll: true, inFlightBare: true },
  )
  sizeSvg(drawing.svg, lay)
  drawing.now.remove()
  orderArrows(drawing)
  drawAxisOf(line, drawing, range)
  wireMarks(
    diagram,
    drawing,
    tooltip,
    () => {},
    () => undefined,
  )
  canvas.replaceChildren(drawing.svg)
  return {
    range,
    length: line.length,
    synced: syncedOf(drawing, diagram, lay),
    ...shapes(line, drawing),
  }
}

/** The ticks each axis shows, so that it is drawn again only when they change. */
const ticksOf = new WeakMap<SVGGElement, string>()

/**
 * The time axis over the stretch drawn (the whole line when it is drawn whole), drawn again only
 * when its ticks change: at the live end a step seldom adds one, and drawing forty again (their
 * labels' text) cost the browser at every step.
 */
function drawAxisOf(line: Line, drawing: Drawing, range: DrawRange | undefined): void {
  const { base, diagram, lay } = line
  const times = timeScale(diagram.timeline, base.x)
  const from = range ? Math.max(LEFT, range.from) : LEFT
  const to = range ? Math.min(base.endX, range.to) : base.endX
  const shown = ticks(times, from, to, 110)
  const key = `${lay.height} ${shown.map((t) => `${t.t}@${t.x}:${t.label}`).join(' ')}`
  if (ticksOf.get(drawing.axis) === key) return
  drawAxis(drawing.axis, shown, lay.height)
  ticksOf.set(drawing.axis, key)
}

/** The lanes and arrows drawn, with their extent in the whole line, for showing a step. */
function shapes(line: Line, drawing: Drawing): { lanes: LaneRect[]; shafts: Shaft[] } {
  const lanes = drawing.lanes.map(({ rect }) => {
    // Read once, as drawn: showing a step changes the width.
    let lane = laneOf.get(rect)
    if (!lane) {
      const width = rect.getAttribute('width') ?? '1'
      lane = { rect, x: Number(rect.getAttribute('x')), width, shown: width }
      laneOf.set(rect, lane)
    }
    return lane
  })
  const moved = line.drawn?.synced.moved ?? new Map()
  return { lanes, shafts: shaftsOf(drawing.messages, moved, line.diagram.timeline.length) }
}
