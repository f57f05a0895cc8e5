/// <reference lib="dom" />
import { eventShown, type Filters } from './filters.js'
import type { Layout } from './layout.js'
import type { Diagram, ProcessId, VizEvent } from './model.js'
import { localRuns, runKey, shownProcesses } from './processes.js'
import type { Drawing } from './render.js'

/**
 * Hidden processes and collapsed local events on a drawn diagram. The diagram is drawn whole and
 * then decorated: a hidden process's line, name, marks, lanes and bands are hidden, the lines
 * left are spread over the height (`rowsWithHidden`), and an arrow between a hidden process and
 * a shown one becomes a short dashed stub on the shown end, pointing towards where the hidden
 * line was. A collapsed run keeps its first mark, ringed, with the run's length next to it.
 */

export interface ProcessState {
  hidden: Set<ProcessId>
  /** ShiViz's "collapse local events". */
  collapse: boolean
  /** Runs the reader expanded (`runKey`, prefixed by the pane). */
  expanded: Set<string>
  /** The run each collapsed mark of the first pane belongs to, for search to expand it. */
  memberOf: Map<VizEvent, string>
}

export function processState(): ProcessState {
  return { hidden: new Set(), collapse: false, expanded: new Set(), memberOf: new Map() }
}

const SVG = 'http://www.w3.org/2000/svg'
/** Where a hidden process's elements go: not in sight, and valid numbers for the drawing. */
const OFF_ROW = -100
const ADDED = 'pv-added'
const CLASSES = ['proc-hidden', 'collapsed-member', 'collapsed-head']

function el(name: string, attrs: Record<string, string | number>, parent: Element): SVGElement {
  const node = document.createElementNS(SVG, name)
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v))
  node.classList.add(ADDED)
  parent.appendChild(node)
  return node
}

/** The shown processes' rows as laid out, and a row out of sight for each hidden one. */
export function rowsWithHidden(lay: Layout, all: readonly ProcessId[]): Layout {
  for (const p of all) if (!lay.y.has(p)) lay.y.set(p, OFF_ROW)
  return lay
}

export { shownProcesses }

export interface Pane {
  diagram: Diagram
  drawing: Drawing
  filters: Filters
}

/**
 * Hides what belongs to hidden processes and collapses runs of local events, undoing the last
 * call's work first (the page calls it again after each filter change). `prefix` names the pane
 * in `state.expanded`; `changed` redraws after the reader hides a process or expands a run.
 */
export function decorateProcesses(
  pane: Pane,
  state: ProcessState,
  changed: () => void,
  prefix = '',
): void {
  const { diagram: d, drawing } = pane
  const svg = drawing.svg
  const hidden = state.hidden
  const names = drawing.labels?.querySelectorAll<SVGTextElement>('.process-label') ?? []
  names.forEach((text, i) => {
    const p = d.processes[i]
    if (p === undefined || text.dataset.processLabel !== undefined) return
    text.dataset.processLabel = p
    text.addEventListener('dblclick', (ev) => {
      ev.stopPropagation()
      hidden.add(p)
      changed()
    })
  })
  // Search reveals matches in the first pane only: its collapsed marks are the ones recorded.
  if (prefix === '') state.memberOf.clear()
  // Nothing hidden or collapsed, nothing done before on this drawing: no pass over its marks.
  if (svg.dataset.decorated !== undefined) {
    for (const node of [...svg.querySelectorAll(`.${ADDED}`)]) node.remove()
    for (const node of [...svg.querySelectorAll(CLASSES.map((c) => `.${c}`).join(','))])
      node.classList.remove(...CLASSES)
  }
  if (hidden.size === 0 && !state.collapse) {
    delete svg.dataset.decorated
    return
  }
  svg.dataset.decorated = ''
  const hide = (node: Element | undefined | null, on: boolean) =>
    node?.classList.toggle('proc-hidden', on)

  for (const line of svg.querySelectorAll<SVGGElement>('.lines [data-process]'))
    hide(line, hidden.has(line.dataset.process!))
  names.forEach((text, i) => {
    hide(text, hidden.has(d.processes[i] ?? ''))
  })
  for (const lane of svg.querySelectorAll<SVGRectElement>('[data-lane-process]'))
    hide(lane, hidden.has(lane.dataset.laneProcess!))
  for (const [band, rect] of drawing.down) hide(rect, hidden.has(band.process))
  for (const [dup, g] of drawing.duplicates) hide(g, hidden.has(dup.from))
  for (const [e, g] of drawing.events) hide(g, hidden.has(e.process))

  const order = new Map(d.processes.map((p, i) => [p, i]))
  for (const [m, g] of drawing.messages) {
    const fromHidden = hidden.has(m.from)
    const toHidden = hidden.has(m.to)
    hide(g, fromHidden || toHidden)
    if (fromHidden === toHidden) continue
    // One end shown: a stub on it, pointing up or down to where the hidden line was.
    const end = fromHidden ? m.deliver : m.send
    const mark = end ? drawing.events.get(end) : undefined
    if (!mark) continue
    const other = fromHidden ? m.from : m.to
    const dy = (order.get(other)! < order.get(fromHidden ? m.to : m.from)! ? -1 : 1) * 16
    const [x1, y1, x2, y2] = fromHidden ? [-14, dy, 0, 0] : [0, 0, 14, dy]
    const stub = el('line', { x1, y1, x2, y2, class: 'stub', 'data-stub': m.id }, mark)
    mark.insertBefore(stub, mark.firstChild)
    el('title', {}, stub).textContent =
      `${fromHidden ? 'from' : 'to'} hidden process ${other}: ${m.type}`
  }

  if (!state.collapse) return
  const shown = new Set(shownProcesses(d.processes, hidden))
  const runs = localRuns(
    d.events.filter((e) => shown.has(e.process)),
    (e) => eventShown(e, pane.filters),
  )
  for (const run of runs) {
    const key = `${prefix}${runKey(run)}`
    if (state.expanded.has(key)) continue
    const head = drawing.events.get(run[0]!)
    if (!head) continue
    for (const e of run.slice(1)) {
      drawing.events.get(e)?.classList.add('collapsed-member')
      if (prefix === '') state.memberOf.set(e, key)
    }
    head.classList.add('collapsed-head')
    const badge = el(
      'g',
      { class: 'collapse-badge', 'data-collapsed': run.length, 'data-collapse-run': key },
      head,
    )
    el('circle', { r: 10, class: 'collapse-ring' }, badge)
    el('text', { x: 12, y: 4, class: 'collapse-count' }, badge).textContent = `×${run.length}`
    el('title', {}, badge).textContent =
      `${run.length} local events of ${run[0]!.process} collapsed: click to expand`
    badge.addEventListener('click', (ev) => {
      // Ahead of the mark's own click (select): this click expands the run.
      ev.stopPropagation()
      state.expanded.add(key)
      changed()
    })
  }
}

/** The sidebar's list: a box per process (untick to hide), the hidden ones named, and the collapse switch. */
export function buildProcessList(
  box: HTMLElement,
  processes: readonly ProcessId[],
  state: ProcessState,
  changed: () => void,
  label: (p: ProcessId) => string,
): void {
  box.replaceChildren()
  const collapse = document.createElement('label')
  const toggle = document.createElement('input')
  toggle.type = 'checkbox'
  toggle.checked = state.collapse
  toggle.dataset.collapseLocal = ''
  toggle.addEventListener('change', () => {
    state.collapse = toggle.checked
    state.expanded.clear()
    changed()
  })
  collapse.append(toggle, ' collapse local events')
  box.append(collapse)
  for (const p of processes) {
    const row = document.createElement('label')
    const check = document.createElement('input')
    check.type = 'checkbox'
    check.checked = !state.hidden.has(p)
    check.dataset.processToggle = p
    check.addEventListener('change', () => {
      if (check.checked) state.hidden.delete(p)
      else state.hidden.add(p)
      changed()
    })
    row.append(check, ` ${label(p)}`)
    box.append(row)
  }
  const hidden = processes.filter((p) => state.hidden.has(p))
  const note = document.createElement('p')
  note.className = 'hint'
  note.dataset.hiddenProcesses = hidden.join(' ')
  if (hidden.length === 0) note.textContent = 'Double-click a name in the diagram to hide it.'
  else {
    note.textContent = `Hidden: ${hidden.map(label).join(', ')} `
    const all = document.createElement('button')
    all.type = 'button'
    all.textContent = 'Show all'
    all.dataset.showAll = ''
    all.addEventListener('click', () => {
      state.hidden.clear()
      changed()
    })
    note.append(all)
  }
  box.append(note)
}
