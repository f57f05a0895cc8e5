/// <reference lib="dom" />
import type { Layout } from './layout.js'
import type { Diagram, HistoryOperation, HistoryVerdict } from './model.js'
import { el } from './svg.js'

/**
 * A non-linearizable history's failing sub-history (the trace's `historyCheck`), drawn over the
 * diagram: each operation an interval from its invocation to its completion (to the end if it is
 * pending) on its process line, labelled with what it did; the first of each model's operations
 * also says why (the model and the checker's message). Each interval carries
 * `data-history-op` (its model) and `data-history-client`; its `<title>` says it all on hover.
 */
export function drawHistories(d: Diagram, lay: Layout, parent: SVGGElement): SVGGElement[] {
  const xAt = timeToX(d, lay)
  const drawn: SVGGElement[] = []
  for (const v of d.histories ?? []) {
    if (v.verdict !== 'not-linearizable') continue
    v.operations.forEach((o, i) => {
      const g = drawOperation(v, o, i === 0, xAt, lay, parent)
      if (g !== undefined) drawn.push(g)
    })
  }
  return drawn
}

function drawOperation(
  v: HistoryVerdict,
  o: HistoryOperation,
  first: boolean,
  xAt: (t: number) => number,
  lay: Layout,
  parent: SVGGElement,
): SVGGElement | undefined {
  const y = lay.y.get(o.process)
  if (y === undefined) return undefined
  const x1 = xAt(o.from)
  const x2 = o.to === undefined ? lay.endX : xAt(o.to)
  const g = el(
    'g',
    {
      class: `history-op history-${v.model}`,
      'data-history-op': v.model,
      'data-history-client': o.client,
    },
    parent,
  )
  // At least 6 px wide: an operation of a few µs is still seen.
  const width = Math.max(6, x2 - x1)
  el('rect', { x: x1 - (width - (x2 - x1)) / 2, y: y - 13, width, height: 26, rx: 4 }, g)
  const interval = `[${o.from}, ${o.to === undefined ? 'pending' : o.to}] ms`
  el('title', {}, g).textContent =
    `${v.model} history NOT linearizable: ${v.message ?? ''}\n${o.label} ${interval}`
  el('text', { x: x1, y: y + 25, class: 'history-op-label' }, g).textContent = o.label
  if (first) {
    const why = el('text', { x: x1, y: y - 18, class: 'history-why' }, g)
    why.textContent = `${v.model} history NOT linearizable: ${v.message ?? ''}`
    why.dataset.historyWhy = v.model
  }
  return g
}

/**
 * Where an instant is on the page: between the timeline's items, proportionally to time (the
 * items' x, made non-decreasing, as anchors); before the first at the first, after the last
 * towards the end of the lines.
 */
export function timeToX(d: Diagram, lay: Layout): (t: number) => number {
  const ts: number[] = []
  const xs: number[] = []
  let most = Number.NEGATIVE_INFINITY
  for (const item of d.timeline) {
    most = Math.max(most, lay.x[item.seq]!)
    if (ts.length > 0 && ts[ts.length - 1] === item.t) xs[xs.length - 1] = most
    else {
      ts.push(item.t)
      xs.push(most)
    }
  }
  return (t) => {
    if (ts.length === 0) return lay.x[0] ?? 0
    if (t <= ts[0]!) return xs[0]!
    if (t >= ts[ts.length - 1]!) return xs[xs.length - 1]!
    let lo = 0
    let hi = ts.length - 1
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1
      if (ts[mid]! <= t) lo = mid
      else hi = mid
    }
    const f = (t - ts[lo]!) / (ts[hi]! - ts[lo]!)
    return xs[lo]! + f * (xs[hi]! - xs[lo]!)
  }
}
