/// <reference lib="dom" />
import { lassoLoopBand } from './lasso-band.js'
import type { Layout } from './layout.js'
import type { Diagram, DownBand, PartitionBand } from './model.js'
import { el } from './svg.js'

/**
 * The faults as bands, and the marks across all lines: a crashed process (crash → restart) and a
 * paused one (pause → resume) as a band on its line; a partition (→ heal) and packet loss
 * (`loss` n% → 0) as a band across all lines; a liveness lasso's loop (its marks, see
 * lasso-band.ts) as a band across all lines; a `mark` entry as a labelled vertical line. Each
 * carries `data-band` (`down`, `paused`, `partition`, `loss`, `loop`) or `data-mark-line`. While stepping
 * through time an open band grows to *now* (`showFaultsAt`).
 */

/** Width of the process names column, which the page keeps in sight: band labels stay right of it. */
export const NAMES_WIDTH = 68

interface TimedBand {
  fromSeq: number
  toSeq?: number
  /** What is hidden before the band begins. */
  el: SVGElement
  /** What grows with time. */
  rect: SVGRectElement
  label?: SVGTextElement
}

export interface Faults {
  bands: TimedBand[]
  marks: { seq: number; el: SVGGElement }[]
  down: Map<DownBand, SVGRectElement>
  partitions: Map<PartitionBand, SVGGElement>
}

export function partitionLabel(groups: readonly (readonly string[])[]): string {
  return `partition ${groups.map((g) => `{${g.join(',')}}`).join(' | ')}`
}

/** Draws the bands into `parent`, between y `top` and `bottom` for those across all lines. */
export function drawFaults(
  d: Diagram,
  lay: Layout,
  parent: SVGGElement,
  top: number,
  bottom: number,
): Faults {
  const faults: Faults = { bands: [], marks: [], down: new Map(), partitions: new Map() }
  const span = (fromSeq: number, toSeq: number | undefined) => {
    const x1 = lay.x[fromSeq]!
    const x2 = toSeq === undefined ? lay.endX : lay.x[toSeq]!
    return { x: x1, width: Math.max(2, x2 - x1) }
  }
  for (const p of d.partitions) {
    const g = el(
      'g',
      { class: 'partition', 'data-partition': p.id, 'data-band': 'partition' },
      parent,
    )
    const rect = el('rect', { ...span(p.fromSeq, p.toSeq), y: top, height: bottom - top }, g)
    const label = el('text', { x: lay.x[p.fromSeq]! + 4, y: top - 6, class: 'band-label' }, g)
    label.textContent = `${partitionLabel(p.groups)}${p.toSeq === undefined ? '' : ' … heal'}`
    faults.bands.push({ fromSeq: p.fromSeq, toSeq: p.toSeq, el: g, rect, label })
    faults.partitions.set(p, g)
  }
  for (const l of d.losses) {
    const g = el('g', { class: 'loss', 'data-loss': l.id, 'data-band': 'loss' }, parent)
    const rect = el('rect', { ...span(l.fromSeq, l.toSeq), y: top, height: bottom - top }, g)
    // At the bottom: a partition's label is at the top, and the two may overlap in time.
    const label = el('text', { x: lay.x[l.fromSeq]! + 4, y: bottom - 4, class: 'loss-label' }, g)
    label.textContent = `loss ${Number(l.percent.toFixed(2))}%`
    el('title', {}, rect).textContent =
      `the network drops ${l.percent}% of the packets${l.toSeq === undefined ? '' : ' until the next loss entry'}`
    faults.bands.push({ fromSeq: l.fromSeq, toSeq: l.toSeq, el: g, rect, label })
  }
  const loop = lassoLoopBand(d.marks)
  if (loop !== undefined) {
    const g = el('g', { class: 'lasso-loop', 'data-band': 'loop' }, parent)
    const rect = el('rect', { ...span(loop.fromSeq, loop.toSeq), y: top, height: bottom - top }, g)
    el('title', {}, rect).textContent =
      `a fair cycle a liveness goal never leaves, replayed ${loop.turns} time${loop.turns === 1 ? '' : 's'}: it repeats forever`
    const label = el('text', { x: lay.x[loop.fromSeq]! + 4, y: top + 24, class: 'loop-label' }, g)
    label.textContent = `lasso loop ×${loop.turns}`
    faults.bands.push({ fromSeq: loop.fromSeq, toSeq: loop.toSeq, el: g, rect, label })
  }
  for (const b of d.down) {
    const y = lay.y.get(b.process)!
    const rect = el('rect', { class: 'down', ...span(b.fromSeq, b.toSeq), y: y - 9, height: 18 })
    rect.dataset.band = 'down'
    parent.appendChild(rect)
    el('title', {}, rect).textContent = `process ${b.process} is down`
    faults.bands.push({ fromSeq: b.fromSeq, toSeq: b.toSeq, el: rect, rect })
    faults.down.set(b, rect)
  }
  for (const b of d.paused) {
    const y = lay.y.get(b.process)!
    const g = el('g', { class: 'paused-band', 'data-band': 'paused' }, parent)
    const rect = el('rect', { ...span(b.fromSeq, b.toSeq), y: y - 9, height: 18 }, g)
    el('title', {}, rect).textContent = `process ${b.process} is paused (its handlers wait)`
    const label = el('text', { x: lay.x[b.fromSeq]! + 4, y: y - 12, class: 'paused-label' }, g)
    label.textContent = 'paused'
    faults.bands.push({ fromSeq: b.fromSeq, toSeq: b.toSeq, el: g, rect, label })
  }
  for (const m of d.marks) {
    const x = lay.x[m.seq]!
    const g = el('g', { class: 'mark-line', 'data-mark-line': m.id }, parent)
    el('line', { x1: x, x2: x, y1: top - 4, y2: bottom }, g)
    el('text', { x: x + 4, y: top + 10, class: 'mark-line-label' }, g).textContent = m.label
    faults.marks.push({ seq: m.seq, el: g })
  }
  return faults
}

/**
 * Shows the faults as of timeline seq `now`: bands not begun yet hidden, open ones drawn up to
 * *now* (to the end of the run once everything is shown), marks after *now* hidden.
 */
export function showFaultsAt(f: Faults, lay: Layout, now: number, end: number): void {
  const nowX = now < 0 ? (lay.x[0] ?? 0) : lay.x[now]!
  for (const b of f.bands) {
    const x1 = lay.x[b.fromSeq]!
    const to = b.toSeq === undefined || b.toSeq > now ? Math.max(x1, nowX) : lay.x[b.toSeq]!
    const x2 = now >= end && b.toSeq === undefined ? lay.endX : to
    b.el.classList.toggle('off-time', b.fromSeq > now)
    b.rect.setAttribute('width', String(Math.max(2, x2 - x1)))
  }
  for (const m of f.marks) m.el.classList.toggle('off-time', m.seq > now)
}

/** Keeps band labels right of the process names when the view is scrolled past a band's start. */
export function pinFaultLabels(f: Faults, lay: Layout, scrollLeft: number): void {
  for (const b of f.bands) {
    if (!b.label) continue
    const x1 = lay.x[b.fromSeq]!
    const x2 = b.toSeq === undefined ? lay.endX : lay.x[b.toSeq]!
    const x = Math.max(x1 + 4, Math.min(scrollLeft + NAMES_WIDTH + 6, x2 - 40))
    b.label.setAttribute('x', String(x))
  }
}
