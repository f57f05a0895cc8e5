/// <reference lib="dom" />
import { showFaultsAt } from './bands.js'
import { type Filters, shownCounts } from './filters.js'
import type { Layout } from './layout.js'
import type { Diagram } from './model.js'
import { atEnd, cursorX, type Playback, scrubPosition, shownAt, stopsShown } from './playback.js'
import type { Drawing } from './render.js'
import { writeStatus } from './status.js'
import { formatTime } from './units.js'

/**
 * A playback position shown on the page: what happened up to `now` drawn and the rest hidden,
 * the cursor, the scrubber and the status line. Where the position comes from is `playback.ts`.
 */

export interface TimeShown {
  diagram: Diagram
  drawing: Drawing
  lay: Layout
  filters: Filters
  /** Screen pixels per diagram unit. */
  scale: number
}

export interface TimeElements {
  scrub: HTMLInputElement
  status: HTMLElement
  canvas: HTMLElement
}

export function showTime(v: TimeShown, p: Playback, ui: TimeElements): void {
  const { now, end } = p
  for (const [e, g] of v.drawing.events) g.classList.toggle('off-time', !shownAt(e.seq, now))
  for (const [m, g] of v.drawing.messages) g.classList.toggle('off-time', !shownAt(m.seq, now))
  for (const [dup, g] of v.drawing.duplicates)
    g.classList.toggle('off-time', !shownAt(dup.seq, now))
  showFaultsAt(v.drawing.faults, v.lay, now, end)
  const nowX = cursorX(v.lay.x, now)
  v.drawing.now.classList.toggle('off-time', atEnd(p))
  v.drawing.now.setAttribute('x1', String(nowX))
  v.drawing.now.setAttribute('x2', String(nowX))
  ui.scrub.value = String(scrubPosition(p))
  // Counted in the diagram, not the DOM: a large run has only the view's stretch drawn.
  const { events: visibleEvents, arrows: visibleArrows } = shownCounts(v.diagram, v.filters, now)
  const t = now < 0 ? undefined : v.diagram.timeline[now]!.t
  const last = v.diagram.timeline[end]?.t ?? 0
  writeStatus(
    ui.status,
    {
      time: t === undefined ? 'start' : formatTime(t, v.diagram.timeUnit),
      step: stopsShown(p),
      steps: p.stops.length,
      events: visibleEvents,
      arrows: visibleArrows,
    },
    formatTime(last + 0.001, v.diagram.timeUnit),
  )
  ui.status.dataset.arrows = String(visibleArrows)
  ui.status.dataset.events = String(visibleEvents)
  ui.status.dataset.now = String(now)
  if (!atEnd(p)) {
    // Keep the cursor in sight while playing or stepping.
    const box = ui.canvas.getBoundingClientRect()
    const left = ui.canvas.scrollLeft
    const screenX = nowX * v.scale
    if (screenX < left + 40 || screenX > left + box.width - 80)
      ui.canvas.scrollLeft = Math.max(0, screenX - box.width / 2)
  }
}
