/// <reference lib="dom" />
import { causalSets, formatVector } from './causality.js'
import { describeEvent } from './describe.js'
import type { Diagram, VizEvent } from './model.js'
import type { Drawing } from './render.js'
import { formatTime } from './units.js'

/**
 * The selected event's causality on the drawing: its past lit blue, its future orange, the rest
 * faded as concurrent; and the panel that says so, with its vector clock. `undefined` clears it.
 */
export function showSelection(
  d: Diagram,
  drawing: Drawing,
  e: VizEvent | undefined,
  panel: HTMLElement,
  clear: () => void,
): void {
  const classes = ['selected', 'past', 'future', 'concurrent']
  for (const g of drawing.events.values()) g.classList.remove(...classes)
  for (const g of drawing.messages.values()) g.classList.remove(...classes)
  drawing.svg.classList.toggle('has-selection', e !== undefined)
  if (!e) {
    panel.innerHTML =
      '<p class="hint">Click an event to see its causal past (blue) and future (orange). Events in neither are concurrent with it (faded).</p>'
    return
  }
  const sets = causalSets(d, e)
  // A large run may not have the selected mark drawn (scrolled away): its sets are still lit.
  drawing.events.get(e)?.classList.add('selected')
  for (const [f, g] of drawing.events) {
    if (f === e) continue
    g.classList.add(sets.past.has(f) ? 'past' : sets.future.has(f) ? 'future' : 'concurrent')
  }
  const inPast = (f: VizEvent | undefined) => f !== undefined && (f === e || sets.past.has(f))
  const inFuture = (f: VizEvent | undefined) => f !== undefined && (f === e || sets.future.has(f))
  for (const [m, g] of drawing.messages) {
    if (inPast(m.send) && (m.deliver === undefined || inPast(m.deliver)) && m.deliver !== e)
      g.classList.add(m.deliver ? 'past' : 'concurrent')
    else if (m.deliver === e) g.classList.add('past')
    else if (inFuture(m.send)) g.classList.add('future')
    else g.classList.add('concurrent')
  }
  const details = describeEvent(d, e)
  panel.replaceChildren()
  const h = document.createElement('p')
  h.innerHTML = '<strong>Selected:</strong> '
  h.append(`${details.title} (process ${e.process}, ${formatTime(e.t, d.timeUnit)})`)
  const counts = document.createElement('p')
  counts.dataset.past = String(sets.past.size)
  counts.dataset.future = String(sets.future.size)
  counts.innerHTML = `<span class="swatch past"></span> causal past: <b>${sets.past.size}</b> events · <span class="swatch future"></span> future: <b>${sets.future.size}</b> · concurrent: <b>${sets.concurrent.size}</b>`
  const clock = document.createElement('p')
  clock.textContent = `V = ${formatVector(e.vc)} over (${d.processes.join(', ')}), Lamport ${e.lamport}. An event f is in the past when V(f) ≤ V, in the future when V ≤ V(f).`
  const button = document.createElement('button')
  button.textContent = 'Clear selection (Esc)'
  button.addEventListener('click', clear)
  panel.append(h, counts, clock, button)
}
