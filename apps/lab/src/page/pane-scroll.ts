/// <reference lib="dom" />
/**
 * The line's pane scrolled by the page, without laying the page out when it need not: setting
 * `scrollLeft` makes the browser lay the page out there and then (5 ms on the 5,000-event run),
 * so the page remembers where it scrolled each pane and scrolls again only when the view moves,
 * or before it changes the drawing (a branch). The reader's own scroll forgets it.
 */
import type { Drawing } from '@sd/visualizer/src/render.js'
import { pinLabels, pinLabelsAt } from './draw.js'

/** Where the page last scrolled each pane: asked for, and where it went. */
const scrolled = new WeakMap<HTMLElement, { asked: number; at: number }>()

export function scrollPane(canvas: HTMLElement, scrollLeft: number): void {
  canvas.scrollLeft = scrollLeft
  scrolled.set(canvas, { asked: scrollLeft, at: canvas.scrollLeft })
}

/** Whether `canvas` stands where the page scrolled it, at `scrollLeft` (not held short of it). */
export function scrolledTo(canvas: HTMLElement, scrollLeft: number): boolean {
  const known = scrolled.get(canvas)
  return known?.asked === scrollLeft && Math.abs(known.at - scrollLeft) < 1
}

/** The process names kept at the pane's left edge, now and as the reader scrolls. */
export function pinOnScroll(canvas: HTMLElement, drawing: Drawing): void {
  const known = scrolled.get(canvas)
  pinLabelsAt(drawing, known ? known.at : canvas.scrollLeft)
  canvas.onscroll = () => {
    const at = canvas.scrollLeft
    if (Math.abs(at - (scrolled.get(canvas)?.at ?? at)) >= 0.5) scrolled.delete(canvas)
    pinLabels(canvas, drawing)
  }
}
