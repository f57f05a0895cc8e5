/// <reference lib="dom" />
import type { Overview } from './overview.js'
import type { Window } from './viewport.js'

/**
 * The brush in the overview strip: drawn on the detail view's window, and dragged to set it
 * (the body moves it, an edge handle resizes it, a press elsewhere centers it there).
 */

/** Draws the brush on window `w` of the run's `full` window. */
export function placeBrush(o: Overview, full: Window, w: Window): void {
  const ox = (x: number) => ((x - full.from) / (full.to - full.from)) * o.width
  const a = Math.max(0, ox(w.from))
  const b = Math.min(o.width, Math.max(a + 2, ox(w.to)))
  o.brush.setAttribute('x', String(a))
  o.brush.setAttribute('width', String(b - a))
  o.from.setAttribute('x', String(a - 3))
  o.to.setAttribute('x', String(b - 3))
  o.brush.dataset.from = w.from.toFixed(2)
  o.brush.dataset.to = w.to.toFixed(2)
}

export interface BrushHost {
  /** The strip drawn, with the run's full window and the detail view's, if a run is open. */
  state(): { overview: Overview; full: Window; window: Window } | undefined
  /** Moves the window to start at `from`, at the same scale. */
  moveWindow(from: number): void
  setWindow(w: Window): void
}

/** Listens to the pointer on the overview strip's box. */
export function wireBrush(box: HTMLElement, host: BrushHost): void {
  let drag: { mode: 'move' | 'from' | 'to'; grab: number } | undefined
  const layoutX = (o: Overview, full: Window, clientX: number) => {
    const rect = o.svg.getBoundingClientRect()
    return full.from + ((clientX - rect.left) / o.width) * (full.to - full.from)
  }
  box.addEventListener('pointerdown', (ev) => {
    const s = host.state()
    if (!s) return
    const at = layoutX(s.overview, s.full, ev.clientX)
    const handle = (ev.target as Element).getAttribute('data-brush-handle')
    if (handle === 'from' || handle === 'to') drag = { mode: handle, grab: 0 }
    else {
      if ((ev.target as Element).getAttribute('data-brush') === null) {
        const span = s.window.to - s.window.from
        host.moveWindow(at - span / 2)
      }
      // The window as it is now (a press off the brush has just moved it).
      drag = { mode: 'move', grab: at - host.state()!.window.from }
    }
    box.setPointerCapture(ev.pointerId)
    ev.preventDefault()
  })
  box.addEventListener('pointermove', (ev) => {
    const s = host.state()
    if (!drag || !s) return
    const at = layoutX(s.overview, s.full, ev.clientX)
    const w = s.window
    if (drag.mode === 'move') host.moveWindow(at - drag.grab)
    else if (drag.mode === 'from') host.setWindow({ from: Math.min(at, w.to - 1), to: w.to })
    else host.setWindow({ from: w.from, to: Math.max(at, w.from + 1) })
  })
  const endDrag = () => {
    drag = undefined
  }
  box.addEventListener('pointerup', endDrag)
  box.addEventListener('pointercancel', endDrag)
}
