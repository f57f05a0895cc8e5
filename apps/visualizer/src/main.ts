/// <reference lib="dom" />
import './style.css'
import './diagram.css'
import { type LaneSegment, stateLanes } from './annotations.js'
import { type TimeScale, ticks, timeScale } from './axis.js'
import { pinFaultLabels } from './bands.js'
import { placeBrush, wireBrush } from './brush.js'
import { initControls } from './controls.js'
import { buildFilterLists } from './filter-lists.js'
import { defaultFilters, eventShown, type Filters, messageShown, stopsOf } from './filters.js'
import { type Layout, type LayoutMode, LEFT, layout } from './layout.js'
import { buildLegend } from './legend.js'
import { parseInput } from './load.js'
import { wireMarks } from './mark-events.js'
import type { Diagram, VizEvent } from './model.js'
import { type Overview, renderOverview } from './overview.js'
import { fetchText, fileName, setPageState, showLoading } from './page-state.js'
import { clampNow, type Playback } from './playback.js'
import { Player } from './player.js'
import { type Drawing, drawAxis, renderDiagram, typeColors } from './render.js'
import { showSelection } from './selection.js'
import { showTime } from './time-view.js'
import { initTools } from './tools.js'
import { createTooltip } from './tooltip.js'
import {
  clampWindow,
  drawRange,
  fullWindow,
  menuWindow,
  outsideDrawn,
  screenLayout,
  viewFor,
  type Window,
  windowOf,
  zoomWindow,
} from './viewport.js'

/**
 * The page: the run open, wired to its parts. Drawing is `render.ts`'s, stepping through time
 * `playback.ts`'s, the controls `controls.ts`'s, the ShiViz tools `tools.ts`'s.
 */

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T

const canvas = $<HTMLDivElement>('canvas')
const statusLine = $<HTMLSpanElement>('status')
const titleLine = $<HTMLSpanElement>('title')
const errorBox = $<HTMLDivElement>('error')
const scrub = $<HTMLInputElement>('scrub')
const speedSelect = $<HTMLSelectElement>('speed')
const layoutSelect = $<HTMLSelectElement>('layout')
/** The layout menu's choice: its options are exactly the two modes. */
const layoutMode = (): LayoutMode => (layoutSelect.value === 'time' ? 'time' : 'compact')
const zoomSelect = $<HTMLSelectElement>('zoom')
const selectionBox = $<HTMLDivElement>('selection')
const legendBox = $<HTMLDivElement>('legend')
const overviewBox = $<HTMLElement>('overview')
const loadingBox = $<HTMLDivElement>('loading')
const filterBoxes = {
  types: $<HTMLDivElement>('types'),
  protos: $<HTMLDivElement>('protos'),
  kinds: $<HTMLDivElement>('kinds'),
  legend: legendBox,
}
const tooltip = createTooltip($<HTMLDivElement>('tooltip'))
const player = new Player($<HTMLButtonElement>('play'), () => Number(speedSelect.value), {
  playback: () => (view ? playback(view) : undefined),
  show: (now) => setNow(now),
})

interface View {
  diagram: Diagram
  name: string
  /** The layout in its own units; `lay` is it as drawn (x scaled by `sx`, lines over the height). */
  base: Layout
  lay: Layout
  /** The stretch of `base` the detail view shows. */
  window: Window
  sx: number
  times: TimeScale
  lanes: LaneSegment[]
  drawing: Drawing
  colors: Map<string, string>
  filters: Filters
  stops: number[]
  /** The last timeline seq shown; everything after it is hidden. */
  now: number
  /** Screen pixels per diagram unit. */
  scale: number
  selected?: VizEvent
}

let view: View | undefined

function showError(text: string): void {
  errorBox.textContent = text
  errorBox.hidden = false
  setPageState('error')
}

/** Parses and draws `text`; `name` is shown in the title. */
function open(text: string, name: string): void {
  player.stop()
  errorBox.hidden = true
  let diagram: Diagram
  try {
    diagram = parseInput(text)
  } catch (e) {
    showError(`Cannot open ${name}: ${e instanceof Error ? e.message : String(e)}`)
    return
  }
  const filters = view?.name === name ? view.filters : defaultFilters()
  const colors = typeColors(diagram.messageTypes)
  view = {
    diagram,
    name,
    colors,
    filters,
    stops: [],
    now: diagram.timeline.length - 1,
    scale: 1,
    base: undefined as unknown as Layout,
    window: { from: 0, to: 1 },
    sx: 1,
    times: undefined as unknown as TimeScale,
    lanes: stateLanes(diagram),
    lay: undefined as unknown as Layout,
    drawing: undefined as unknown as Drawing,
  }
  document.body.dataset.format = diagram.format
  titleLine.textContent = `${name} — ${diagram.title}${diagram.skipped > 0 ? ` · ${diagram.skipped} entries not drawn` : ''}`
  document.title = `${name} · sd visualizer`
  buildFilterLists(filterBoxes, diagram, filters, colors, applyFilters)
  // Ready before drawing: the pane's height is measured without the loading line.
  setPageState('ready')
  draw()
}

async function openUrl(url: string): Promise<void> {
  showLoading(loadingBox, fileName(url))
  try {
    open(await fetchText(url), fileName(url))
  } catch (e) {
    showError(`Cannot load ${url}: ${e instanceof Error ? e.message : String(e)}`)
  }
}

async function openFile(file: File): Promise<void> {
  showLoading(loadingBox, file.name)
  open(await file.text(), file.name)
}

/** Lays the diagram out for the current spacing, then draws it at the zoom chosen. */
function draw(): void {
  if (!view) return
  const v = view
  v.base = layout(v.diagram, layoutMode())
  v.times = timeScale(v.diagram.timeline, v.base.x)
  v.window = zoomWindowFromSelect(v)
  render()
}

const viewWidth = () => Math.max(200, canvas.clientWidth)
/** The pane's height less a horizontal scrollbar. */
const viewHeight = () => Math.max(160, canvas.clientHeight - 16)

/** The window the zoom menu asks for (see `menuWindow`). */
function zoomWindowFromSelect(v: View): Window {
  return menuWindow(zoomSelect.value, fullWindow(v.base), v.window, viewWidth())
}

let renderPending = false
/** Sets the detail view's window; the drawing follows at the next frame. */
function setWindow(w: Window, viaSelect = false): void {
  if (!view) return
  const full = fullWindow(view.base)
  view.window = clampWindow(w, full, Math.max(0.5, (viewWidth() - 140) / 40))
  if (!viaSelect) {
    const fits = view.window.from <= full.from + 1e-6 && view.window.to >= full.to - 1e-6
    zoomSelect.value = fits ? 'fit' : 'custom'
    const custom = zoomSelect.querySelector<HTMLOptionElement>('option[value=custom]')
    if (custom) custom.textContent = `${Math.round(viewFor(view.window, viewWidth()).sx * 100)}%`
  }
  updateBrush()
  scheduleRender()
}

/** Redraws at the next frame (once, however many changes come before it). */
function scheduleRender(): void {
  if (renderPending) return
  renderPending = true
  requestAnimationFrame(() => {
    renderPending = false
    render()
  })
}

/** Draws the diagram for the window and the pane's size, keeping time, filters and selection. */
function render(): void {
  if (!view) return
  const v = view
  const { sx, scrollLeft } = viewFor(v.window, viewWidth())
  v.sx = sx
  v.lay = tools.rows(
    screenLayout(v.base, tools.shown(v.diagram.processes), sx, viewHeight()),
    v.diagram.processes,
  )
  tooltip.hide()
  const items = v.diagram.events.length + v.diagram.messages.length
  const range = drawRange(items, scrollLeft, viewWidth())
  v.drawing = renderDiagram(v.diagram, v.lay, v.colors, v.lanes, range)
  v.drawing.svg.dataset.sx = String(sx)
  canvas.replaceChildren(v.drawing.svg)
  applyZoom()
  canvas.scrollLeft = scrollLeft
  wireMarks(v.diagram, v.drawing, tooltip, select, () => v.selected)
  applyFilters()
  select(v.selected)
  onScroll()
  drawOverview()
}

/** Sizes the SVG: positions are already on screen scale (`screenLayout`), so 1:1. */
function applyZoom(): void {
  if (!view) return
  const v = view
  v.scale = 1
  v.drawing.svg.setAttribute('width', String(Math.ceil(v.lay.width)))
  v.drawing.svg.setAttribute('height', String(Math.ceil(v.lay.height)))
  pinLabels()
}

/** After a scroll: the window follows, the axis is redrawn for what is in sight, the brush moves. */
function onScroll(): void {
  pinLabels()
  if (!view?.drawing) return
  const v = view
  pinFaultLabels(v.drawing.faults, v.lay, canvas.scrollLeft)
  // A large run is drawn around the view only: scrolled past that, draw again.
  if (outsideDrawn(v.drawing.range, canvas.scrollLeft, viewWidth())) scheduleRender()
  v.window = windowOf(canvas.scrollLeft, viewWidth(), v.sx)
  const toScreen = (x: number) => LEFT + (x - LEFT) * v.sx
  const span = v.window.to - v.window.from
  const shown = ticks(v.times, v.window.from - span, v.window.to + span, 110 / v.sx).map((t) => ({
    ...t,
    x: toScreen(t.x),
  }))
  drawAxis(v.drawing.axis, shown, v.lay.height)
  const svg = v.drawing.svg
  svg.dataset.windowFrom = v.window.from.toFixed(2)
  svg.dataset.windowTo = v.window.to.toFixed(2)
  svg.dataset.timeFrom = String(v.times.tAt(v.window.from))
  svg.dataset.timeTo = String(v.times.tAt(v.window.to))
  updateBrush()
  tools.scrolled()
}

let overview: Overview | undefined

/** The overview strip of the whole run, with the brush on the detail view's window. */
function drawOverview(): void {
  if (!view) return
  overview = renderOverview(view.diagram, view.base, Math.max(200, overviewBox.clientWidth))
  overviewBox.replaceChildren(overview.svg)
  updateBrush()
}

function updateBrush(): void {
  if (view && overview) placeBrush(overview, fullWindow(view.base), view.window)
}

wireBrush(overviewBox, {
  state: () =>
    view && overview ? { overview, full: fullWindow(view.base), window: view.window } : undefined,
  moveWindow,
  setWindow: (w) => setWindow(w),
})

/** Moves the window to start at `from` (same scale: a scroll, no redraw). */
function moveWindow(from: number): void {
  if (!view) return
  const span = view.window.to - view.window.from
  const w = clampWindow({ from, to: from + span }, fullWindow(view.base), span)
  canvas.scrollLeft = (w.from - fullWindow(view.base).from) * view.sx
  onScroll()
}

/** Zooms the detail view by `factor` around the layout x `at` (the view's middle by default). */
function zoomBy(factor: number, at?: number): void {
  if (!view) return
  const w = view.window
  setWindow(zoomWindow(w, factor, at ?? (w.from + w.to) / 2))
}

/** Keeps the process names at the left edge of the pane, whatever the horizontal scroll. */
function pinLabels(): void {
  if (!view?.drawing.labels) return
  view.drawing.labels.setAttribute('transform', `translate(${canvas.scrollLeft / view.scale},0)`)
}

function applyFilters(): void {
  if (!view) return
  const v = view
  for (const [e, g] of v.drawing.events) g.classList.toggle('off-filter', !eventShown(e, v.filters))
  for (const [m, g] of v.drawing.messages)
    g.classList.toggle('off-filter', !messageShown(m, v.filters))
  v.stops = stopsOf(v.diagram, v.filters)
  scrub.max = String(v.stops.length)
  applyTime()
  tools.filtered()
}

const playback = (v: View): Playback => ({
  now: v.now,
  end: v.diagram.timeline.length - 1,
  stops: v.stops,
})

/** Shows what happened up to `view.now`, hides the rest. */
function applyTime(): void {
  if (!view) return
  showTime(view, playback(view), { scrub, status: statusLine, canvas })
  tooltip.hideIfGone()
}

function setNow(now: number): void {
  if (!view) return
  view.now = clampNow(playback(view), now)
  applyTime()
}

function select(e: VizEvent | undefined): void {
  if (!view) return
  view.selected = e
  showSelection(view.diagram, view.drawing, e, selectionBox, () => select(undefined))
}

initControls(
  {
    file: $('file'),
    canvas,
    scrub,
    play: $('play'),
    reset: $('reset'),
    back: $('back'),
    step: $('step'),
    end: $('end'),
    speed: speedSelect,
    layout: layoutSelect,
    zoom: zoomSelect,
  },
  {
    loaded: () => view !== undefined,
    openFile: (file) => void openFile(file),
    toStart: player.toStart,
    back: player.back,
    step: player.step,
    toEnd: player.toEnd,
    togglePlay: player.toggle,
    scrub: player.scrub,
    speedChanged: player.speedChanged,
    layoutChanged: draw,
    zoomChanged: () => {
      if (view) setWindow(zoomWindowFromSelect(view), true)
    },
    scrolled: onScroll,
    resized: () => {
      if (view) setWindow(zoomSelect.value === 'fit' ? fullWindow(view.base) : view.window, true)
    },
    zoomBy: (factor, offset) =>
      zoomBy(
        factor,
        view && offset !== undefined ? view.window.from + (offset - LEFT) / view.sx : undefined,
      ),
    fit: () => {
      if (view) setWindow(fullWindow(view.base))
    },
    clearSelection: () => select(undefined),
  },
)

// Hide / collapse processes, search, compare two runs (ShiViz's tools): their own modules.
const tools = initTools({
  view: () => view,
  redraw: render,
  moveWindow,
  layoutMode,
  height: viewHeight,
  hover: tooltip,
})

export function start(): void {
  const params = new URLSearchParams(location.search)
  const mode = params.get('layout')
  if (mode === 'time' || mode === 'compact') layoutSelect.value = mode
  const zoom = params.get('zoom')
  if (zoom && Array.from(zoomSelect.options).some((o) => o.value === zoom)) zoomSelect.value = zoom
  const trace = params.get('trace')
  if (trace) void openUrl(trace)
  else {
    buildLegend(legendBox)
    setPageState('empty')
  }
}

start()
