/// <reference lib="dom" />
import './style.css'
import { type LaneSegment, stateLanes } from './annotations.js'
import { type TimeScale, ticks, timeScale } from './axis.js'
import { pinFaultLabels, showFaultsAt } from './bands.js'
import { causalSets, formatVector } from './causality.js'
import { type Details, describeEvent, describeMessage } from './describe.js'
import {
  defaultFilters,
  eventShown,
  type Filters,
  messageShown,
  NO_PROTO,
  nextStop,
  previousStop,
  protoChoices,
  shownCounts,
  stopsOf,
} from './filters.js'
import { type Layout, type LayoutMode, LEFT, layout } from './layout.js'
import { buildLegend } from './legend.js'
import { parseInput } from './load.js'
import type { Diagram, EventKind, VizEvent } from './model.js'
import { type Overview, renderOverview } from './overview.js'
import { type Drawing, drawAxis, renderDiagram, typeColors } from './render.js'
import { writeStatus } from './status.js'
import { initTools } from './tools.js'
import { formatTime } from './units.js'
import {
  clampWindow,
  drawRange,
  fullWindow,
  outsideDrawn,
  screenLayout,
  viewFor,
  type Window,
  windowOf,
  zoomWindow,
} from './viewport.js'

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T

const fileInput = $<HTMLInputElement>('file')
const canvas = $<HTMLDivElement>('canvas')
const tooltip = $<HTMLDivElement>('tooltip')
const statusLine = $<HTMLSpanElement>('status')
const titleLine = $<HTMLSpanElement>('title')
const errorBox = $<HTMLDivElement>('error')
const scrub = $<HTMLInputElement>('scrub')
const playButton = $<HTMLButtonElement>('play')
const speedSelect = $<HTMLSelectElement>('speed')
const layoutSelect = $<HTMLSelectElement>('layout')
const zoomSelect = $<HTMLSelectElement>('zoom')
const selectionBox = $<HTMLDivElement>('selection')
const typeList = $<HTMLDivElement>('types')
const protoList = $<HTMLDivElement>('protos')
const kindList = $<HTMLDivElement>('kinds')
const legendBox = $<HTMLDivElement>('legend')
const overviewBox = $<HTMLElement>('overview')
const loadingBox = $<HTMLDivElement>('loading')

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
let timer: ReturnType<typeof setInterval> | undefined

function setState(state: 'empty' | 'loading' | 'ready' | 'error'): void {
  document.body.dataset.state = state
}

function showError(text: string): void {
  errorBox.textContent = text
  errorBox.hidden = false
  setState('error')
}

/** Parses and draws `text`; `name` is shown in the title. */
function open(text: string, name: string): void {
  stop()
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
  buildFilterLists(view)
  // Ready before drawing: the pane's height is measured without the loading line.
  setState('ready')
  draw()
}

/** Lays the diagram out for the current spacing, then draws it at the zoom chosen. */
function draw(): void {
  if (!view) return
  const v = view
  v.base = layout(v.diagram, layoutSelect.value as LayoutMode)
  v.times = timeScale(v.diagram.timeline, v.base.x)
  v.window = zoomWindowFromSelect(v)
  render()
}

const viewWidth = () => Math.max(200, canvas.clientWidth)
/** The pane's height less a horizontal scrollbar. */
const viewHeight = () => Math.max(160, canvas.clientHeight - 16)

/** The window the zoom menu asks for: the whole run, or a scale kept at the current left edge. */
function zoomWindowFromSelect(v: View): Window {
  const full = fullWindow(v.base)
  const zoom = zoomSelect.value
  if (zoom === 'fit') return full
  if (zoom === 'custom') return v.window
  return windowOf(
    Math.max(0, (v.window.from - full.from) * Number(zoom)),
    viewWidth(),
    Number(zoom),
  )
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
  hideTooltip()
  const items = v.diagram.events.length + v.diagram.messages.length
  const range = drawRange(items, scrollLeft, viewWidth())
  v.drawing = renderDiagram(v.diagram, v.lay, v.colors, v.lanes, range)
  v.drawing.svg.dataset.sx = String(sx)
  canvas.replaceChildren(v.drawing.svg)
  applyZoom()
  canvas.scrollLeft = scrollLeft
  for (const [e, g] of v.drawing.events) {
    g.addEventListener('mouseenter', (ev) => showTooltip(describeEvent(v.diagram, e), ev))
    g.addEventListener('mousemove', moveTooltip)
    g.addEventListener('mouseleave', hideTooltip)
    g.addEventListener('click', (ev) => {
      ev.stopPropagation()
      select(v.selected === e ? undefined : e)
    })
    g.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter') select(v.selected === e ? undefined : e)
    })
  }
  for (const [m, g] of v.drawing.messages) {
    g.addEventListener('mouseenter', (ev) => showTooltip(describeMessage(v.diagram, m), ev))
    g.addEventListener('mousemove', moveTooltip)
    g.addEventListener('mouseleave', hideTooltip)
  }
  v.drawing.svg.addEventListener('click', () => select(undefined))
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
  if (!view || !overview) return
  const full = fullWindow(view.base)
  const ox = (x: number) => ((x - full.from) / (full.to - full.from)) * overview!.width
  const a = Math.max(0, ox(view.window.from))
  const b = Math.min(overview.width, Math.max(a + 2, ox(view.window.to)))
  overview.brush.setAttribute('x', String(a))
  overview.brush.setAttribute('width', String(b - a))
  overview.from.setAttribute('x', String(a - 3))
  overview.to.setAttribute('x', String(b - 3))
  overview.brush.dataset.from = view.window.from.toFixed(2)
  overview.brush.dataset.to = view.window.to.toFixed(2)
}

/** Dragging in the overview: the window's body moves it, its edges resize it, elsewhere centers it there. */
let drag: { mode: 'move' | 'from' | 'to'; grab: number } | undefined
overviewBox.addEventListener('pointerdown', (ev) => {
  if (!view || !overview) return
  const full = fullWindow(view.base)
  const rect = overview.svg.getBoundingClientRect()
  const at = full.from + ((ev.clientX - rect.left) / overview.width) * (full.to - full.from)
  const handle = (ev.target as Element).getAttribute('data-brush-handle')
  if (handle === 'from' || handle === 'to') drag = { mode: handle, grab: 0 }
  else {
    if ((ev.target as Element).getAttribute('data-brush') === null) {
      const span = view.window.to - view.window.from
      moveWindow(at - span / 2)
    }
    drag = { mode: 'move', grab: at - view.window.from }
  }
  overviewBox.setPointerCapture(ev.pointerId)
  ev.preventDefault()
})
overviewBox.addEventListener('pointermove', (ev) => {
  if (!drag || !view || !overview) return
  const full = fullWindow(view.base)
  const rect = overview.svg.getBoundingClientRect()
  const at = full.from + ((ev.clientX - rect.left) / overview.width) * (full.to - full.from)
  if (drag.mode === 'move') moveWindow(at - drag.grab)
  else if (drag.mode === 'from')
    setWindow({ from: Math.min(at, view.window.to - 1), to: view.window.to })
  else setWindow({ from: view.window.from, to: Math.max(at, view.window.from + 1) })
})
const endDrag = () => {
  drag = undefined
}
overviewBox.addEventListener('pointerup', endDrag)
overviewBox.addEventListener('pointercancel', endDrag)

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

/** Shows what happened up to `view.now`, hides the rest. */
function applyTime(): void {
  if (!view) return
  const v = view
  const now = v.now
  const end = v.diagram.timeline.length - 1
  for (const [e, g] of v.drawing.events) g.classList.toggle('off-time', e.seq > now)
  for (const [m, g] of v.drawing.messages) g.classList.toggle('off-time', m.seq > now)
  for (const [dup, g] of v.drawing.duplicates) g.classList.toggle('off-time', dup.seq > now)
  showFaultsAt(v.drawing.faults, v.lay, now, end)
  const nowX = now < 0 ? (v.lay.x[0] ?? 0) : v.lay.x[now]!
  const atEnd = now >= end
  v.drawing.now.classList.toggle('off-time', atEnd)
  v.drawing.now.setAttribute('x1', String(nowX))
  v.drawing.now.setAttribute('x2', String(nowX))
  const shownStops = v.stops.filter((s) => s <= now).length
  scrub.value = String(atEnd ? v.stops.length : shownStops)
  // Counted in the diagram, not the DOM: a large run has only the view's stretch drawn.
  const { events: visibleEvents, arrows: visibleArrows } = shownCounts(v.diagram, v.filters, now)
  const t = now < 0 ? undefined : v.diagram.timeline[now]!.t
  const last = v.diagram.timeline[end]?.t ?? 0
  writeStatus(
    statusLine,
    {
      time: t === undefined ? 'start' : formatTime(t, v.diagram.timeUnit),
      step: shownStops,
      steps: v.stops.length,
      events: visibleEvents,
      arrows: visibleArrows,
    },
    formatTime(last + 0.001, v.diagram.timeUnit),
  )
  statusLine.dataset.arrows = String(visibleArrows)
  statusLine.dataset.events = String(visibleEvents)
  statusLine.dataset.now = String(now)
  hideTooltipIfGone()
  if (!atEnd) {
    // Keep the cursor in sight while playing or stepping.
    const box = canvas.getBoundingClientRect()
    const left = canvas.scrollLeft
    const screenX = nowX * v.scale
    if (screenX < left + 40 || screenX > left + box.width - 80)
      canvas.scrollLeft = Math.max(0, screenX - box.width / 2)
  }
}

function setNow(now: number): void {
  if (!view) return
  view.now = Math.max(-1, Math.min(view.diagram.timeline.length - 1, now))
  applyTime()
}

function step(): boolean {
  if (!view) return false
  const next = nextStop(view.stops, view.now)
  if (next === undefined) {
    setNow(view.diagram.timeline.length - 1)
    return false
  }
  // The last stop reveals the whole diagram (bands to the end included).
  setNow(next === view.stops[view.stops.length - 1] ? view.diagram.timeline.length - 1 : next)
  return true
}

function stepBack(): void {
  if (view) setNow(previousStop(view.stops, view.now))
}

function play(): void {
  if (!view) return
  if (timer) {
    stop()
    return
  }
  if (view.now >= view.diagram.timeline.length - 1) setNow(-1)
  playButton.textContent = '❚❚ Pause'
  playButton.setAttribute('aria-pressed', 'true')
  timer = setInterval(() => {
    if (!step()) stop()
  }, 1000 / Number(speedSelect.value))
}

function stop(): void {
  if (timer) clearInterval(timer)
  timer = undefined
  playButton.textContent = '▶ Play'
  playButton.setAttribute('aria-pressed', 'false')
}

function select(e: VizEvent | undefined): void {
  if (!view) return
  const v = view
  v.selected = e
  const classes = ['selected', 'past', 'future', 'concurrent']
  for (const g of v.drawing.events.values()) g.classList.remove(...classes)
  for (const g of v.drawing.messages.values()) g.classList.remove(...classes)
  v.drawing.svg.classList.toggle('has-selection', e !== undefined)
  if (!e) {
    selectionBox.innerHTML =
      '<p class="hint">Click an event to see its causal past (blue) and future (orange). Events in neither are concurrent with it (faded).</p>'
    return
  }
  const sets = causalSets(v.diagram, e)
  // A large run may not have the selected mark drawn (scrolled away): its sets are still lit.
  v.drawing.events.get(e)?.classList.add('selected')
  for (const [f, g] of v.drawing.events) {
    if (f === e) continue
    g.classList.add(sets.past.has(f) ? 'past' : sets.future.has(f) ? 'future' : 'concurrent')
  }
  const inPast = (f: VizEvent | undefined) => f !== undefined && (f === e || sets.past.has(f))
  const inFuture = (f: VizEvent | undefined) => f !== undefined && (f === e || sets.future.has(f))
  for (const [m, g] of v.drawing.messages) {
    if (inPast(m.send) && (m.deliver === undefined || inPast(m.deliver)) && m.deliver !== e)
      g.classList.add(m.deliver ? 'past' : 'concurrent')
    else if (m.deliver === e) g.classList.add('past')
    else if (inFuture(m.send)) g.classList.add('future')
    else g.classList.add('concurrent')
  }
  const d = describeEvent(v.diagram, e)
  selectionBox.replaceChildren()
  const h = document.createElement('p')
  h.innerHTML = '<strong>Selected:</strong> '
  h.append(`${d.title} (process ${e.process}, ${formatTime(e.t, v.diagram.timeUnit)})`)
  const counts = document.createElement('p')
  counts.dataset.past = String(sets.past.size)
  counts.dataset.future = String(sets.future.size)
  counts.innerHTML = `<span class="swatch past"></span> causal past: <b>${sets.past.size}</b> events · <span class="swatch future"></span> future: <b>${sets.future.size}</b> · concurrent: <b>${sets.concurrent.size}</b>`
  const clock = document.createElement('p')
  clock.textContent = `V = ${formatVector(e.vc)} over (${v.diagram.processes.join(', ')}), Lamport ${e.lamport}. An event f is in the past when V(f) ≤ V, in the future when V ≤ V(f).`
  const clear = document.createElement('button')
  clear.textContent = 'Clear selection (Esc)'
  clear.addEventListener('click', () => select(undefined))
  selectionBox.append(h, counts, clock, clear)
}

/** The mark or arrow the tooltip is about: hidden with it (a step, a filter, a redraw). */
let tooltipOwner: Element | undefined

function showTooltip(d: Details, ev: MouseEvent): void {
  tooltipOwner = ev.currentTarget instanceof Element ? ev.currentTarget : undefined
  tooltip.replaceChildren()
  const title = document.createElement('div')
  title.className = 'tt-title'
  title.textContent = d.title
  const table = document.createElement('table')
  for (const [k, val] of d.rows) {
    const tr = table.insertRow()
    tr.insertCell().textContent = k
    tr.insertCell().textContent = val
  }
  tooltip.append(title, table)
  tooltip.hidden = false
  moveTooltip(ev)
}

function moveTooltip(ev: MouseEvent): void {
  const pad = 14
  const w = tooltip.offsetWidth
  const h = tooltip.offsetHeight
  let x = ev.clientX + pad
  let y = ev.clientY + pad
  if (x + w > window.innerWidth - 4) x = Math.max(4, ev.clientX - w - pad)
  if (y + h > window.innerHeight - 4) y = Math.max(4, ev.clientY - h - pad)
  tooltip.style.left = `${x}px`
  tooltip.style.top = `${y}px`
}

function hideTooltip(): void {
  tooltip.hidden = true
  tooltipOwner = undefined
}

/** Hides the tooltip when what it describes is gone or hidden (no mouseleave comes then). */
function hideTooltipIfGone(): void {
  if (tooltipOwner && (!tooltipOwner.isConnected || tooltipOwner.closest('.off-time, .off-filter')))
    hideTooltip()
}

const KIND_LABELS: [EventKind[], string][] = [
  [['emit'], 'events the protocol emits ★'],
  [['request'], 'local requests ■'],
  [['timer-fire'], 'timers firing ▲'],
  [['timer-set', 'timer-cancel'], 'timers set / cancelled'],
  [['storage'], 'stable storage writes'],
  [['start'], 'process starts'],
]

function checkbox(
  parent: HTMLElement,
  label: string,
  checked: boolean,
  onChange: (on: boolean) => void,
  attrs: Record<string, string> = {},
  swatch?: string,
): void {
  const row = document.createElement('label')
  const box = document.createElement('input')
  box.type = 'checkbox'
  box.checked = checked
  for (const [k, val] of Object.entries(attrs)) box.setAttribute(k, val)
  box.addEventListener('change', () => onChange(box.checked))
  row.append(box)
  if (swatch) {
    const s = document.createElement('span')
    s.className = 'swatch'
    s.style.background = swatch
    row.append(s)
  }
  row.append(` ${label}`)
  parent.append(row)
}

function buildFilterLists(v: View): void {
  typeList.replaceChildren()
  const counts = new Map<string, number>()
  for (const m of v.diagram.messages) counts.set(m.type, (counts.get(m.type) ?? 0) + 1)
  if (v.diagram.messageTypes.length === 0) typeList.textContent = 'no messages'
  for (const type of v.diagram.messageTypes) {
    checkbox(
      typeList,
      `${type} (${counts.get(type) ?? 0})`,
      !v.filters.hiddenTypes.has(type),
      (on) => {
        if (on) v.filters.hiddenTypes.delete(type)
        else v.filters.hiddenTypes.add(type)
        applyFilters()
      },
      { 'data-type': type },
      v.colors.get(type),
    )
  }
  protoList.replaceChildren()
  const protos = protoChoices(v.diagram)
  protoList.parentElement!.hidden = protos.length === 0
  for (const proto of protos) {
    checkbox(
      protoList,
      proto === NO_PROTO ? '(no protocol)' : proto,
      !v.filters.hiddenProtos.has(proto),
      (on) => {
        if (on) v.filters.hiddenProtos.delete(proto)
        else v.filters.hiddenProtos.add(proto)
        applyFilters()
      },
      { 'data-proto': proto },
    )
  }
  kindList.replaceChildren()
  const present = new Set(v.diagram.events.map((e) => e.kind))
  for (const [kinds, label] of KIND_LABELS) {
    if (!kinds.some((k) => present.has(k))) continue
    checkbox(
      kindList,
      label,
      !kinds.some((k) => v.filters.hiddenKinds.has(k)),
      (on) => {
        for (const k of kinds) {
          if (on) v.filters.hiddenKinds.delete(k)
          else v.filters.hiddenKinds.add(k)
        }
        applyFilters()
      },
      { 'data-kind': kinds.join(' ') },
    )
  }
  buildLegend(legendBox, v.diagram)
}

/** While a trace loads, the page says which (not *No trace open yet*). */
function showLoading(name: string): void {
  loadingBox.textContent = `Loading ${name}…`
  setState('loading')
}

async function openUrl(url: string): Promise<void> {
  showLoading(decodeURIComponent(url.split('/').pop() || url))
  try {
    const response = await fetch(url)
    if (!response.ok) throw new Error(`${response.status} ${response.statusText}`)
    open(await response.text(), decodeURIComponent(url.split('/').pop() || url))
  } catch (e) {
    showError(`Cannot load ${url}: ${e instanceof Error ? e.message : String(e)}`)
  }
}

async function openFile(file: File): Promise<void> {
  showLoading(file.name)
  open(await file.text(), file.name)
}

fileInput.addEventListener('change', () => {
  const file = fileInput.files?.[0]
  if (file) void openFile(file)
})

let dragDepth = 0
document.addEventListener('dragenter', (ev) => {
  ev.preventDefault()
  dragDepth++
  document.body.classList.add('dragging')
})
document.addEventListener('dragleave', () => {
  dragDepth = Math.max(0, dragDepth - 1)
  if (dragDepth === 0) document.body.classList.remove('dragging')
})
document.addEventListener('dragover', (ev) => ev.preventDefault())
document.addEventListener('drop', (ev) => {
  ev.preventDefault()
  dragDepth = 0
  document.body.classList.remove('dragging')
  const file = ev.dataTransfer?.files[0]
  if (file) void openFile(file)
})

$('reset').addEventListener('click', () => {
  stop()
  setNow(-1)
})
$('back').addEventListener('click', () => {
  stop()
  stepBack()
})
playButton.addEventListener('click', play)
$('step').addEventListener('click', () => {
  stop()
  step()
})
$('end').addEventListener('click', () => {
  stop()
  if (view) setNow(view.diagram.timeline.length - 1)
})
scrub.addEventListener('input', () => {
  if (!view) return
  stop()
  const k = Number(scrub.value)
  setNow(
    k >= view.stops.length ? view.diagram.timeline.length - 1 : k === 0 ? -1 : view.stops[k - 1]!,
  )
})
speedSelect.addEventListener('change', () => {
  if (timer) {
    stop()
    play()
  }
})
layoutSelect.addEventListener('change', draw)
canvas.addEventListener('scroll', onScroll)
zoomSelect.addEventListener('change', () => {
  if (view) setWindow(zoomWindowFromSelect(view), true)
})
canvas.addEventListener(
  'wheel',
  (ev) => {
    // Shift + wheel (or a sideways wheel) pans as the browser does; the wheel zooms.
    if (!view || ev.shiftKey || Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) return
    ev.preventDefault()
    const rect = canvas.getBoundingClientRect()
    const at = view.window.from + (ev.clientX - rect.left - LEFT) / view.sx
    zoomBy(Math.exp(-ev.deltaY * 0.002), at)
  },
  { passive: false },
)
window.addEventListener('resize', () => {
  if (view) setWindow(zoomSelect.value === 'fit' ? fullWindow(view.base) : view.window, true)
})

document.addEventListener('keydown', (ev) => {
  const target = ev.target as HTMLElement
  if (target.tagName === 'INPUT' || target.tagName === 'SELECT') return
  if (ev.key === 'ArrowRight') {
    stop()
    step()
  } else if (ev.key === 'ArrowLeft') {
    stop()
    stepBack()
  } else if (ev.key === ' ') {
    ev.preventDefault()
    play()
  } else if (ev.key === 'Home') {
    stop()
    setNow(-1)
  } else if (ev.key === 'End') {
    stop()
    if (view) setNow(view.diagram.timeline.length - 1)
  } else if (ev.key === '+' || ev.key === '=') zoomBy(1.5)
  else if (ev.key === '-' || ev.key === '_') zoomBy(1 / 1.5)
  else if (ev.key === '0') {
    if (view) setWindow(fullWindow(view.base))
  } else if (ev.key === 'Escape') select(undefined)
  else return
})

// Hide / collapse processes, search, compare two runs (ShiViz's tools): their own modules.
const tools = initTools({
  view: () => view,
  redraw: render,
  moveWindow,
  layoutMode: () => layoutSelect.value as LayoutMode,
  height: viewHeight,
  hover: { show: showTooltip, move: moveTooltip, hide: hideTooltip },
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
    setState('empty')
  }
}

start()
