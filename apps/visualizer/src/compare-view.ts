/// <reference lib="dom" />
import { stateLanes } from './annotations.js'
import { ticks, timeScale } from './axis.js'
import { diffRuns, type RunDiff } from './compare.js'
import { type Details, describeEvent } from './describe.js'
import { eventShown, messageShown } from './filters.js'
import { type Layout, type LayoutMode, LEFT, layout } from './layout.js'
import { parseInput } from './load.js'
import type { Diagram, ProcessId } from './model.js'
import {
  decorateProcesses,
  type Pane,
  type ProcessState,
  rowsWithHidden,
  shownProcesses,
} from './process-view.js'
import { drawAxis, renderDiagram, typeColors } from './render.js'
import { screenLayout, viewFor, type Window } from './viewport.js'

/**
 * A second run drawn under the first, for a pairwise comparison as ShiViz makes it. Each run
 * keeps its own layout (compact spacing depends on the run's own instants); the second pane
 * shows the same share of its run as the first pane's window of the first run, so zooming or
 * scrolling the first moves the second along. Its lines are in the first run's order, paired by
 * name (names only the second run has come last), and follow the first's hidden processes and
 * collapsed events. Events one run has and the other has not (`compare.ts`) are ringed in both
 * panes, and each line is labelled with its count of differences.
 */

export interface MainPane extends Pane {
  base: Layout
  window: Window
}

export interface CompareHost {
  pane(): MainPane | undefined
  processes: ProcessState
  layoutMode(): LayoutMode
  height(): number
  redraw(): void
  hover: {
    show(d: Details, ev: MouseEvent): void
    move(ev: MouseEvent): void
    hide(): void
  }
}

export interface CompareElements {
  pane: HTMLElement
  canvas: HTMLElement
  title: HTMLElement
  summary: HTMLElement
  section: HTMLElement
}

const SVG = 'http://www.w3.org/2000/svg'

export class CompareView {
  private other: { diagram: Diagram; name: string; base: Layout; mode: LayoutMode } | undefined
  private diff: { a: Diagram; b: Diagram; result: RunDiff } | undefined
  private drawing: Pane['drawing'] | undefined
  private sx = 1

  constructor(
    private readonly host: CompareHost,
    private readonly ui: CompareElements,
  ) {
    ui.canvas.addEventListener('scroll', () => this.pinLabels())
  }

  get active(): boolean {
    return this.other !== undefined
  }

  /** Opens the second run; throws an `InputError` saying what is wrong with it. */
  load(text: string, name: string): void {
    const diagram = parseInput(text)
    const mode = this.host.layoutMode()
    this.other = { diagram, name, base: layout(diagram, mode), mode }
    this.diff = undefined
    document.body.classList.add('comparing')
    this.ui.pane.hidden = false
    this.ui.section.hidden = false
    this.host.redraw()
  }

  close(): void {
    this.other = undefined
    this.diff = undefined
    this.drawing = undefined
    document.body.classList.remove('comparing')
    this.ui.pane.hidden = true
    this.ui.section.hidden = true
    this.ui.canvas.replaceChildren()
    this.host.pane()?.drawing.svg.removeAttribute('data-run')
    this.host.redraw()
  }

  /** The comparison of the first pane's run with the second, computed once per pair. */
  result(): RunDiff | undefined {
    const a = this.host.pane()?.diagram
    if (!a || !this.other) return undefined
    if (this.diff?.a !== a || this.diff.b !== this.other.diagram)
      this.diff = { a, b: this.other.diagram, result: diffRuns(a, this.other.diagram) }
    return this.diff.result
  }

  /** Draws the second run for the first pane's window (after each redraw of the first). */
  render(): void {
    const main = this.host.pane()
    const other = this.other
    const diff = this.result()
    if (!main || !other || !diff) return
    const mode = this.host.layoutMode()
    if (other.mode !== mode) {
      other.base = layout(other.diagram, mode)
      other.mode = mode
    }
    main.drawing.svg.dataset.run = 'a'
    const fullA = { from: LEFT, to: Math.max(LEFT + 1, main.base.endX) }
    const fullB = { from: LEFT, to: Math.max(LEFT + 1, other.base.endX) }
    const share = (x: number) => (x - fullA.from) / (fullA.to - fullA.from)
    const w = {
      from: fullB.from + share(main.window.from) * (fullB.to - fullB.from),
      to: fullB.from + share(main.window.to) * (fullB.to - fullB.from),
    }
    const width = Math.max(200, this.ui.canvas.clientWidth)
    const { sx, scrollLeft } = viewFor(w, width)
    this.sx = sx
    const hidden = this.host.processes.hidden
    const paired = diff.processes.filter((p) => other.diagram.processes.includes(p))
    const lay = rowsWithHidden(
      screenLayout(other.base, shownProcesses(paired, hidden), sx, this.host.height()),
      other.diagram.processes,
    )
    const colors = typeColors([
      ...main.diagram.messageTypes,
      ...other.diagram.messageTypes.filter((t) => !main.diagram.messageTypes.includes(t)),
    ])
    const drawing = renderDiagram(other.diagram, lay, colors, stateLanes(other.diagram))
    drawing.svg.id = 'diagram-b'
    drawing.svg.dataset.run = 'b'
    drawing.svg.setAttribute('width', String(Math.ceil(lay.width)))
    drawing.svg.setAttribute('height', String(Math.ceil(lay.height)))
    drawing.now.classList.add('off-time')
    const times = timeScale(other.diagram.timeline, other.base.x)
    const span = w.to - w.from
    drawAxis(
      drawing.axis,
      ticks(times, w.from - span, w.to + span, 110 / sx).map((t) => ({
        ...t,
        x: LEFT + (t.x - LEFT) * sx,
      })),
      lay.height,
    )
    for (const [e, g] of drawing.events) {
      g.classList.toggle('off-filter', !eventShown(e, main.filters))
      g.addEventListener('mouseenter', (ev) =>
        this.host.hover.show(describeEvent(other.diagram, e), ev),
      )
      g.addEventListener('mousemove', (ev) => this.host.hover.move(ev))
      g.addEventListener('mouseleave', () => this.host.hover.hide())
    }
    for (const [m, g] of drawing.messages)
      g.classList.toggle('off-filter', !messageShown(m, main.filters))
    this.drawing = drawing
    this.ui.canvas.replaceChildren(drawing.svg)
    this.ui.canvas.scrollLeft = scrollLeft
    this.ui.title.textContent = `compared with ${other.name} — ${other.diagram.title}`
    const paneB: Pane = { diagram: other.diagram, drawing, filters: main.filters }
    decorateProcesses(paneB, this.host.processes, () => this.host.redraw(), 'b:')
    this.mark(main, 'a', diff)
    this.mark(paneB, 'b', diff)
    this.pinLabels()
    this.summarize(diff)
  }

  /** Keeps the second pane on the same share of its run as the first pane's window. */
  follow(): void {
    const main = this.host.pane()
    if (!main || !this.other || !this.drawing) return
    const fullA = Math.max(1, main.base.endX - LEFT)
    const fullB = Math.max(1, this.other.base.endX - LEFT)
    const from = LEFT + ((main.window.from - LEFT) / fullA) * fullB
    this.ui.canvas.scrollLeft = Math.max(0, (from - LEFT) * this.sx)
  }

  /** Rings the events of `run` the other run lacks, and writes each line's count under its name. */
  private mark(pane: Pane, run: 'a' | 'b', diff: RunDiff): void {
    const only = run === 'a' ? diff.onlyA : diff.onlyB
    for (const node of [...pane.drawing.svg.querySelectorAll('[data-diff-count]')]) node.remove()
    for (const [e, g] of pane.drawing.events) {
      const differs = only.has(e)
      g.classList.toggle('diff', differs)
      if (differs) g.dataset.diff = run
      else delete g.dataset.diff
    }
    const labels = pane.drawing.labels
    if (!labels) return
    const names = labels.querySelectorAll<SVGTextElement>('.process-label')
    pane.diagram.processes.forEach((p, i) => {
      const name = names[i]
      const counts = diff.perProcess.get(p)
      if (!name || !counts || this.host.processes.hidden.has(p)) return
      const n = run === 'a' ? counts.a : counts.b
      const text = document.createElementNS(SVG, 'text')
      text.setAttribute('x', '62')
      text.setAttribute('y', String(Number(name.getAttribute('y')) + 13))
      text.setAttribute('text-anchor', 'end')
      text.setAttribute('class', n > 0 ? 'diff-count' : 'diff-count none')
      text.dataset.diffCount = String(n)
      text.dataset.diffProcess = p
      text.textContent = n > 0 ? `Δ ${n}` : '='
      labels.append(text)
    })
  }

  private summarize(diff: RunDiff): void {
    const box = this.ui.summary
    box.replaceChildren()
    const head = document.createElement('p')
    head.dataset.diffTotal = String(diff.total)
    head.dataset.diffA = String(diff.onlyA.size)
    head.dataset.diffB = String(diff.onlyB.size)
    head.textContent = `${diff.total} difference${diff.total === 1 ? '' : 's'}: ${diff.onlyA.size} only in the first run (above), ${diff.onlyB.size} only in ${this.other?.name ?? 'the second'} (below).`
    const list = document.createElement('ul')
    list.className = 'diff-list'
    for (const p of diff.processes) {
      const c = diff.perProcess.get(p)!
      const li = document.createElement('li')
      li.dataset.diffProcess = p
      li.textContent = `${p}: ${c.a} above, ${c.b} below`
      list.append(li)
    }
    const close = document.createElement('button')
    close.type = 'button'
    close.textContent = 'Close the comparison'
    close.dataset.closeCompare = ''
    close.addEventListener('click', () => this.close())
    box.append(head, list, close)
  }

  private pinLabels(): void {
    this.drawing?.labels?.setAttribute('transform', `translate(${this.ui.canvas.scrollLeft},0)`)
  }

  /** The paired process order, for tests and the sidebar. */
  processes(): ProcessId[] {
    return this.result()?.processes ?? []
  }
}
