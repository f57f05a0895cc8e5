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

/** An arrow: hovered, its details. */
export function wireMessage(d: Diagram, m: VizMessage, g: SVGGElement, tooltip: Tooltip): void {
  g.addEventListener('mouseenter', (ev) => tooltip.show(describeMessage(d, m), ev))
  g.addEventListener('mousemove', tooltip.move)
  g.addEventListener('mouseleave', tooltip.hide)
}
