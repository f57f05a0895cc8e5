import type { Layout } from './layout.js'
import { LEFT, TOP } from './layout.js'

/**
 * The detail view: a window of the layout's x range shown across the pane's width (its left edge
 * just right of the process names), and the process lines spread over the pane's height.
 */

/** Room kept right of the window's right edge, in screen pixels. */
export const VIEW_RIGHT = 40
/** Room below the last process line (its state lane and labels). */
const BOTTOM = 40
/** Process lines never closer than this; more processes than fit make the pane scroll down. */
export const MIN_ROW_GAP = 22

export interface Window {
  from: number
  to: number
}

/** Screen pixels per layout unit, and the horizontal scroll that show `w` in a pane `viewWidth` wide. */
export function viewFor(w: Window, viewWidth: number): { sx: number; scrollLeft: number } {
  const span = Math.max(1e-9, w.to - w.from)
  const sx = Math.max(1e-6, viewWidth - LEFT - VIEW_RIGHT) / span
  return { sx, scrollLeft: Math.max(0, (w.from - LEFT) * sx) }
}

/** The layout window a pane shows at scale `sx` scrolled to `scrollLeft`. */
export function windowOf(scrollLeft: number, viewWidth: number, sx: number): Window {
  const from = LEFT + scrollLeft / sx
  return { from, to: from + Math.max(1, viewWidth - LEFT - VIEW_RIGHT) / sx }
}

/** The window of the whole run. */
export function fullWindow(lay: Layout): Window {
  return { from: LEFT, to: Math.max(LEFT + 1, lay.endX) }
}

/** Keeps a window inside the run and at least `minSpan` wide, its width kept when moved. */
export function clampWindow(w: Window, full: Window, minSpan: number): Window {
  const span = Math.min(full.to - full.from, Math.max(minSpan, w.to - w.from))
  let from = Math.max(full.from, Math.min(w.from, full.to - span))
  if (!Number.isFinite(from)) from = full.from
  return { from, to: from + span }
}

/**
 * The window the zoom menu's `choice` asks for: the whole run (`fit`), the window as it is
 * (`custom`: set by the wheel or the brush), or a scale (`2` = 2 px per unit) kept at the
 * current window's left edge.
 */
export function menuWindow(
  choice: string,
  full: Window,
  current: Window,
  viewWidth: number,
): Window {
  if (choice === 'fit') return full
  if (choice === 'custom') return current
  const scale = Number(choice)
  return windowOf(Math.max(0, (current.from - full.from) * scale), viewWidth, scale)
}

/** Zooms `w` by `factor` (> 1: in) around layout x `at`. */
export function zoomWindow(w: Window, factor: number, at: number): Window {
  const f = 1 / factor
  return { from: at - (at - w.from) * f, to: at + (w.to - at) * f }
}

/** y of each of `n` process lines spread over `height` pixels (at least MIN_ROW_GAP apart). */
export function rowYs(n: number, height: number): number[] {
  if (n <= 0) return []
  const room = height - TOP - BOTTOM
  const gap = n <= 1 ? 0 : Math.max(MIN_ROW_GAP, room / (n - 1))
  const top = n <= 1 ? TOP + Math.max(0, room / 2) : TOP
  return Array.from({ length: n }, (_, i) => top + i * gap)
}

/**
 * The layout as drawn on screen: x stretched by `sx` right of the names column, process lines
 * spread over `height`. Marks keep their size at every zoom since only positions scale.
 */
export function screenLayout(
  lay: Layout,
  processes: readonly string[],
  sx: number,
  height: number,
): Layout {
  const toScreen = (x: number) => LEFT + (x - LEFT) * sx
  const ys = rowYs(processes.length, height)
  const y = new Map(processes.map((p, i) => [p, ys[i]!]))
  const endX = toScreen(lay.endX)
  const last = ys[ys.length - 1] ?? TOP
  return {
    x: lay.x.map(toScreen),
    y,
    endX,
    width: endX + VIEW_RIGHT + LEFT,
    height: Math.max(height, last + BOTTOM),
  }
}

/** Below this many marks and arrows everything is drawn; above it, the window and a margin. */
export const DRAW_ALL_BELOW = 4000

/**
 * The stretch of screen x to draw for a pane `viewWidth` wide scrolled to `scrollLeft`: the view
 * and half a view either side (so a small scroll needs no redraw), or undefined (everything)
 * for a diagram of fewer than `DRAW_ALL_BELOW` items.
 */
export function drawRange(
  items: number,
  scrollLeft: number,
  viewWidth: number,
): { from: number; to: number } | undefined {
  if (items < DRAW_ALL_BELOW) return undefined
  return { from: scrollLeft - viewWidth / 2, to: scrollLeft + viewWidth * 1.5 }
}

/** Whether the view scrolled to `scrollLeft` shows x outside what was drawn. */
export function outsideDrawn(
  range: { from: number; to: number } | undefined,
  scrollLeft: number,
  viewWidth: number,
): boolean {
  return range !== undefined && (scrollLeft < range.from || scrollLeft + viewWidth > range.to)
}
