/// <reference lib="dom" />
import { describeEvent, describeMessage } from './describe.js'
import type { Diagram, VizEvent, VizMessage } from './model.js'
import type { Drawing } from './render.js'
import type { Tooltip } from './tooltip.js'

/**
 * What the pointer and keys do on a drawing: a mark or arrow hovered shows its details, a mark
 * clicked (or Enter on it) is picked, a click elsewhere on the drawing picks nothing.
 */
export function wireMarks(
  d: Diagram,
  drawing: Drawing,
  tooltip: Tooltip,
  pick: (e: VizEvent | undefined) => void,
  selected: () => VizEvent | undefined,
): void {
  for (const [e, g] of drawing.events) wireEvent(d, e, g, tooltip, pick, selected)
  for (const [m, g] of drawing.messages) wireMessage(d, m, g, tooltip)
  drawing.svg.addEventListener('click', () => pick(undefined))
}

/** A mark: hovered, its details; clicked (or Enter), picked. */
export function wireEvent(
  d: Diagram,
  e: VizEvent,
  g: SVGGElement,
  tooltip: Tooltip,
  pick: (e: VizEvent | undefined) => void,
  selected: () => VizEvent | undefined,
): void {
  g.addEventListener('mouseenter', (ev) => tooltip.show(describeEvent(d, e), ev))
  g.addEventListener('mousemove', tooltip.move)
  g.addEventListener('mouseleave', tooltip.hide)
  g.addEventListener('click', (ev) => {
    ev.stopPropagation()
    pick(selected() === e ? undefined : e)
  })
  g.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter') pick(selected() === e ? undefined : e)
  })
}

/** The message each arrow wired stands for (wired again: another, its listeners kept). */
const arrowOf = new WeakMap<SVGGElement, { d: Diagram; m: VizMessage }>()

/**
 * An arrow: hovered, its details. Wired again, it stands for the message given then (the lab
 * makes an arrow delivered on one line the same message's arrow in flight on a branch).
 */
export function wireMessage(d: Diagram, m: VizMessage, g: SVGGElement, tooltip: Tooltip): void {
  const wired = arrowOf.has(g)
  arrowOf.set(g, { d, m })
  if (wired) return
  g.addEventListener('mouseenter', (ev) => {
    const now = arrowOf.get(g)!
    tooltip.show(describeMessage(now.d, now.m), ev)
  })
  g.addEventListener('mousemove', tooltip.move)
  g.addEventListener('mouseleave', tooltip.hide)
}
