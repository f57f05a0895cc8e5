/// <reference lib="dom" />
import type { Diagram, VizEvent } from './model.js'
import type { Pane } from './process-view.js'
import { nextMatch, searchEvents } from './search.js'

/**
 * The search box: matches highlighted, the other marks and arrows faded, "3 of 12", Enter /
 * shift+Enter (or the arrows) to the next / previous match, which the detail view is moved to,
 * Esc to clear. Events of hidden processes are not searched.
 */

export interface SearchElements {
  input: HTMLInputElement
  count: HTMLElement
  previous: HTMLButtonElement
  next: HTMLButtonElement
}

export interface SearchHost {
  pane(): Pane | undefined
  hidden(): ReadonlySet<string>
  /** Makes `e` visible (expands its collapsed run) and moves the detail view to it. */
  reveal(e: VizEvent): void
}

export class SearchView {
  private query = ''
  private cache: { diagram: Diagram; query: string; all: VizEvent[] } | undefined
  private matches: VizEvent[] = []
  private current = -1

  constructor(
    private readonly host: SearchHost,
    private readonly ui: SearchElements,
  ) {
    ui.input.addEventListener('input', () => {
      this.query = ui.input.value
      this.current = -1
      this.apply()
    })
    ui.input.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter') {
        ev.preventDefault()
        this.go(ev.shiftKey ? -1 : 1)
      } else if (ev.key === 'Escape') {
        ev.preventDefault()
        this.clear()
      }
    })
    ui.next.addEventListener('click', () => this.go(1))
    ui.previous.addEventListener('click', () => this.go(-1))
  }

  clear(): void {
    this.ui.input.value = ''
    this.query = ''
    this.current = -1
    this.apply()
  }

  /** Marks the matches on the drawing (again after each redraw) and updates the count. */
  apply(): void {
    const pane = this.host.pane()
    const svg = pane?.drawing.svg
    if (!pane || !svg) return
    for (const node of [...svg.querySelectorAll('.search-match, .search-current')])
      node.classList.remove('search-match', 'search-current')
    if (this.cache?.diagram !== pane.diagram || this.cache.query !== this.query)
      this.cache = {
        diagram: pane.diagram,
        query: this.query,
        all: searchEvents(pane.diagram.events, this.query),
      }
    const hidden = this.host.hidden()
    this.matches = this.cache.all.filter((e) => !hidden.has(e.process))
    if (this.current >= this.matches.length) this.current = -1
    const active = this.query.trim() !== ''
    svg.classList.toggle('has-search', active)
    for (const e of this.matches) pane.drawing.events.get(e)?.classList.add('search-match')
    const at = this.matches[this.current]
    if (at) pane.drawing.events.get(at)?.classList.add('search-current')
    const n = this.matches.length
    this.ui.count.textContent = !active
      ? ''
      : n === 0
        ? 'no match'
        : this.current < 0
          ? `${n} match${n === 1 ? '' : 'es'}`
          : `${this.current + 1} of ${n}`
    this.ui.count.dataset.matches = String(active ? n : 0)
    this.ui.count.dataset.current = String(this.current + 1)
    this.ui.previous.disabled = n === 0
    this.ui.next.disabled = n === 0
  }

  /** To the next (1) or previous (-1) match: highlighted, made visible, brought into the view. */
  go(step: 1 | -1): void {
    this.current = nextMatch(this.matches.length, this.current, step)
    const e = this.matches[this.current]
    if (!e) return
    this.host.reveal(e)
    this.apply()
  }
}
