/// <reference lib="dom" />
import './tools.css'
import { CompareView, type MainPane } from './compare-view.js'
import type { Details } from './describe.js'
import type { Layout, LayoutMode } from './layout.js'
import type { Diagram, ProcessId } from './model.js'
import {
  buildProcessList,
  decorateProcesses,
  processState,
  rowsWithHidden,
  shownProcesses,
} from './process-view.js'
import { SearchView } from './search-view.js'

/**
 * The ShiViz-style tools, wired to the page: hiding processes and collapsing local events, the
 * search box, and the comparison with a second run. The page calls `shown` / `rows` when it lays
 * the lines out, `filtered` after each redraw or filter change, `scrolled` after a scroll.
 */

export interface ToolsHost {
  view(): MainPane | undefined
  /** Lays out and draws the page again (hidden processes change the rows). */
  redraw(): void
  /** Moves the detail view's window to start at layout x `from`, at the same scale. */
  moveWindow(from: number): void
  layoutMode(): LayoutMode
  /** The detail pane's height, for the second run's rows. */
  height(): number
  hover: { show(d: Details, ev: MouseEvent): void; move(ev: MouseEvent): void; hide(): void }
}

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T

export function initTools(host: ToolsHost) {
  const processes = processState()
  let current: Diagram | undefined
  const processBox = $<HTMLDivElement>('processes')

  const changed = () => {
    rebuildList()
    host.redraw()
  }
  const rebuildList = () => {
    if (!current) return
    const d = current
    buildProcessList(processBox, d.processes, processes, changed, (p) =>
      d.format === 'shiviz' ? `host ${p}` : `node ${p}`,
    )
  }
  /** A newly opened run starts with every process shown and nothing expanded. */
  const sync = () => {
    const d = host.view()?.diagram
    if (!d || d === current) return
    current = d
    processes.hidden.clear()
    processes.expanded.clear()
    rebuildList()
  }

  const search = new SearchView(
    {
      pane: () => host.view(),
      hidden: () => processes.hidden,
      reveal(e) {
        const v = host.view()
        if (!v) return
        const run = processes.memberOf.get(e)
        if (run !== undefined) {
          processes.expanded.add(run)
          host.redraw()
        }
        host.moveWindow(v.base.x[e.seq]! - (v.window.to - v.window.from) / 2)
      },
    },
    {
      input: $('search'),
      count: $('search-count'),
      previous: $('search-previous'),
      next: $('search-next'),
    },
  )

  const compare = new CompareView(
    {
      pane: () => host.view(),
      processes,
      layoutMode: host.layoutMode,
      height: host.height,
      redraw: changed,
      hover: host.hover,
    },
    {
      pane: $('compare-pane'),
      canvas: $('compare-canvas'),
      title: $('compare-title'),
      summary: $('compare-summary'),
      section: $('compare-section'),
    },
  )
  const compareError = (text: string) => {
    $('compare-section').hidden = false
    $('compare-summary').textContent = text
    $('compare-summary').dataset.error = ''
  }
  const loadCompare = (text: string, name: string) => {
    try {
      delete $('compare-summary').dataset.error
      compare.load(text, name)
    } catch (e) {
      compareError(`Cannot compare with ${name}: ${e instanceof Error ? e.message : String(e)}`)
    }
  }
  const compareFile = $<HTMLInputElement>('compare-file')
  compareFile.addEventListener('change', () => {
    const file = compareFile.files?.[0]
    if (file) void file.text().then((text) => loadCompare(text, file.name))
  })
  const url = new URLSearchParams(location.search).get('compare')
  if (url)
    void fetch(url)
      .then(async (response) => {
        if (!response.ok) throw new Error(`${response.status} ${response.statusText}`)
        loadCompare(await response.text(), decodeURIComponent(url.split('/').pop() || url))
      })
      .catch((e) => compareError(`Cannot load ${url}: ${e instanceof Error ? e.message : e}`))

  return {
    /** The processes to give rows to. */
    shown(all: readonly ProcessId[]): ProcessId[] {
      sync()
      return shownProcesses(all, processes.hidden)
    },
    /** The laid-out rows, with hidden processes out of sight. */
    rows(lay: Layout, all: readonly ProcessId[]): Layout {
      return rowsWithHidden(lay, all)
    },
    filtered(): void {
      const v = host.view()
      if (!v) return
      sync()
      decorateProcesses(v, processes, changed)
      search.apply()
      compare.render()
    },
    scrolled(): void {
      compare.follow()
    },
  }
}
