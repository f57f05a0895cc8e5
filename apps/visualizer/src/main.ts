/// <reference lib="dom" />
import './style.css'
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
  stopsOf,
} from './filters.js'
import { type Layout, type LayoutMode, layout } from './layout.js'
import { parseInput } from './load.js'
import type { Diagram, EventKind, VizEvent } from './model.js'
import { type Drawing, drawMark, renderDiagram, typeColors } from './render.js'
import { formatTime } from './trace.js'

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

interface View {
  diagram: Diagram
  name: string
  lay: Layout
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
    lay: undefined as unknown as Layout,
    drawing: undefined as unknown as Drawing,
  }
  document.body.dataset.format = diagram.format
  titleLine.textContent = `${name} — ${diagram.title}${diagram.skipped > 0 ? ` · ${diagram.skipped} entries not drawn` : ''}`
  document.title = `${name} · sd visualizer`
  buildFilterLists(view)
  draw()
  setState('ready')
}

/** (Re)draws the SVG for the current layout mode, keeping time, filters and selection. */
function draw(): void {
  if (!view) return
  const v = view
  v.lay = layout(v.diagram, layoutSelect.value as LayoutMode)
  v.drawing = renderDiagram(v.diagram, v.lay, v.colors)
  canvas.replaceChildren(v.drawing.svg)
  applyZoom()
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
}

/** Sizes the SVG for the zoom chosen; `fit` scales the whole width into the pane. */
function applyZoom(): void {
  if (!view) return
  const v = view
  const zoom = zoomSelect.value
  v.scale = zoom === 'fit' ? Math.min(1.5, (canvas.clientWidth - 4) / v.lay.width) : Number(zoom)
  v.drawing.svg.setAttribute('width', String(Math.round(v.lay.width * v.scale)))
  v.drawing.svg.setAttribute('height', String(Math.round(v.lay.height * v.scale)))
  pinLabels()
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
}

/** Shows what happened up to `view.now`, hides the rest. */
function applyTime(): void {
  if (!view) return
  const v = view
  const now = v.now
  const end = v.diagram.timeline.length - 1
  for (const [e, g] of v.drawing.events) g.classList.toggle('off-time', e.seq > now)
  for (const [m, g] of v.drawing.messages) g.classList.toggle('off-time', m.seq > now)
  v.diagram.duplicates.forEach((dup, i) => {
    v.drawing.duplicates[i]!.classList.toggle('off-time', dup.seq > now)
  })
  const nowX = now < 0 ? (v.lay.x[0] ?? 0) : v.lay.x[now]!
  for (const [b, rect] of v.drawing.down) {
    const x1 = v.lay.x[b.fromSeq]!
    const to = b.toSeq === undefined || b.toSeq > now ? Math.max(x1, nowX) : v.lay.x[b.toSeq]!
    const x2 = now >= end && b.toSeq === undefined ? v.lay.endX : to
    rect.classList.toggle('off-time', b.fromSeq > now)
    rect.setAttribute('width', String(Math.max(2, x2 - x1)))
  }
  for (const [p, g] of v.drawing.partitions) {
    const x1 = v.lay.x[p.fromSeq]!
    const to = p.toSeq === undefined || p.toSeq > now ? Math.max(x1, nowX) : v.lay.x[p.toSeq]!
    const x2 = now >= end && p.toSeq === undefined ? v.lay.endX : to
    g.classList.toggle('off-time', p.fromSeq > now)
    g.querySelector('rect')!.setAttribute('width', String(Math.max(2, x2 - x1)))
  }
  const atEnd = now >= end
  v.drawing.now.classList.toggle('off-time', atEnd)
  v.drawing.now.setAttribute('x1', String(nowX))
  v.drawing.now.setAttribute('x2', String(nowX))
  const shownStops = v.stops.filter((s) => s <= now).length
  scrub.value = String(atEnd ? v.stops.length : shownStops)
  const visibleArrows = [...v.drawing.messages.values()].filter(
    (g) => !g.classList.contains('off-time') && !g.classList.contains('off-filter'),
  ).length
  const visibleEvents = [...v.drawing.events.values()].filter(
    (g) => !g.classList.contains('off-time') && !g.classList.contains('off-filter'),
  ).length
  const t = now < 0 ? undefined : v.diagram.timeline[now]!.t
  statusLine.textContent = `${t === undefined ? 'start' : formatTime(t, v.diagram.timeUnit)} · step ${shownStops} of ${v.stops.length} · ${visibleEvents} events, ${visibleArrows} arrows shown`
  statusLine.dataset.arrows = String(visibleArrows)
  statusLine.dataset.events = String(visibleEvents)
  statusLine.dataset.now = String(now)
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
  v.drawing.events.get(e)!.classList.add('selected')
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

function showTooltip(d: Details, ev: MouseEvent): void {
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
  buildLegend(v.diagram)
}

const LEGEND: [EventKind, string][] = [
  ['send', 'send (colored by message type)'],
  ['deliver', 'delivery'],
  ['emit', 'event emitted by the protocol'],
  ['request', 'local request'],
  ['timer-fire', 'timer fires'],
  ['timer-set', 'timer set'],
  ['timer-cancel', 'timer cancelled'],
  ['storage', 'storage write'],
  ['start', 'process starts'],
  ['crash', 'crash'],
  ['restart', 'restart'],
  ['clock', 'clock set'],
  ['error', 'error'],
  ['log', 'logged event (ShiViz)'],
]

function icon(draw: (svg: SVGSVGElement) => void): SVGSVGElement {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg')
  svg.setAttribute('width', '34')
  svg.setAttribute('height', '18')
  svg.setAttribute('viewBox', '-17 -9 34 18')
  draw(svg)
  return svg
}

function legendRow(svg: SVGSVGElement, text: string): HTMLElement {
  const row = document.createElement('div')
  row.className = 'legend-row'
  row.append(svg, text)
  return row
}

function svgChild(parent: Element, name: string, attrs: Record<string, string>): void {
  const node = document.createElementNS('http://www.w3.org/2000/svg', name)
  for (const [k, val] of Object.entries(attrs)) node.setAttribute(k, val)
  parent.append(node)
}

/** The legend of what `d` draws; before any trace, of the common marks. */
function buildLegend(d?: Diagram): void {
  legendBox.replaceChildren()
  const present = new Set<EventKind>(
    d
      ? d.events.map((e) => e.kind)
      : ['send', 'deliver', 'emit', 'request', 'timer-fire', 'crash', 'restart'],
  )
  for (const [kind, text] of LEGEND) {
    if (!present.has(kind)) continue
    legendBox.append(
      legendRow(
        icon((svg) => drawMark(kind, svg)),
        text,
      ),
    )
  }
  legendBox.append(
    legendRow(
      icon((svg) => {
        svgChild(svg, 'line', {
          x1: '-14',
          y1: '0',
          x2: '10',
          y2: '0',
          stroke: '#555',
          'stroke-width': '1.6',
        })
        svgChild(svg, 'polygon', { points: '14,0 6,-4 6,4', fill: '#555' })
      }),
      'message, from its send to its delivery',
    ),
  )
  if (!d) return
  if (d.messages.some((m) => m.outcome === 'drop'))
    legendBox.append(
      legendRow(
        icon((svg) => {
          svgChild(svg, 'line', {
            x1: '-14',
            y1: '0',
            x2: '8',
            y2: '0',
            stroke: '#555',
            'stroke-dasharray': '3 2',
          })
          svgChild(svg, 'path', {
            d: 'M3,-5L13,5M13,-5L3,5',
            stroke: '#c0161d',
            'stroke-width': '2',
          })
        }),
        'message dropped (the reason is written)',
      ),
    )
  if (d.duplicates.length > 0)
    legendBox.append(
      legendRow(
        icon(() => {}),
        '⧉ duplicated by the network: two arrows, one id',
      ),
    )
  if (d.messages.some((m) => m.outcome === 'in-flight'))
    legendBox.append(
      legendRow(
        icon(() => {}),
        'arrow to the right edge: still in flight at the end',
      ),
    )
  if (d.down.length > 0)
    legendBox.append(
      legendRow(
        icon((svg) =>
          svgChild(svg, 'rect', { x: '-14', y: '-6', width: '28', height: '12', class: 'down' }),
        ),
        'process down (crashed, until its restart)',
      ),
    )
  if (d.partitions.length > 0)
    legendBox.append(
      legendRow(
        icon((svg) =>
          svgChild(svg, 'rect', {
            x: '-14',
            y: '-8',
            width: '28',
            height: '16',
            class: 'partition-swatch',
          }),
        ),
        'network partitioned (until heal)',
      ),
    )
}

async function openUrl(url: string): Promise<void> {
  setState('loading')
  try {
    const response = await fetch(url)
    if (!response.ok) throw new Error(`${response.status} ${response.statusText}`)
    open(await response.text(), decodeURIComponent(url.split('/').pop() || url))
  } catch (e) {
    showError(`Cannot load ${url}: ${e instanceof Error ? e.message : String(e)}`)
  }
}

async function openFile(file: File): Promise<void> {
  setState('loading')
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
canvas.addEventListener('scroll', pinLabels)
zoomSelect.addEventListener('change', applyZoom)
window.addEventListener('resize', () => {
  if (zoomSelect.value === 'fit') applyZoom()
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
  } else if (ev.key === 'Escape') select(undefined)
  else return
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
    buildLegend()
    setState('empty')
  }
}

start()
