/// <reference lib="dom" />
import { describeEvent, describeMessage } from './describe.js'
import type { Diagram, VizEvent } from './model.js'
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
  for (const [e, g] of drawing.events) {
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
  for (const [m, g] of drawing.messages) {
    g.addEventListener('mouseenter', (ev) => tooltip.show(describeMessage(d, m), ev))
    g.addEventListener('mousemove', tooltip.move)
    g.addEventListener('mouseleave', tooltip.hide)
  }
  drawing.svg.addEventListener('click', () => pick(undefined))
}
