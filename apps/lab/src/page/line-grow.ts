/// <reference lib="dom" />
/**
 * A drawing of the line brought to a longer line (steps added at its live end) or to another
 * stretch of it, instead of drawn afresh: each mark, arrow, lane and duplicate sign has a key
 * (what it is drawn as, its label shown or not), the items that should be drawn are listed in the
 * order drawn (the diagram's; arrows by their sends, `drawOrder`), and the drawing keeps the
 * elements whose key it has, drops the others and draws the missing ones in place. Labels are decided over the whole line (`labelsOverAll`), so an
 * item's drawing does not depend on the stretch drawn, and an arrow's plan is made again only
 * from the first arrow that changed (a message in flight delivered). So the SVG is the one
 * `renderDiagram` draws of the same line and stretch (the browser test compares them). The few
 * fault bands and mark lines are drawn again when one begins or ends. What would change the whole
 * drawing (the lines, the height, a new message type and its colour) is not brought along: `sync`
 * says so and the caller draws afresh. A diagram of a prefix of the line (a branch cut back to its
 * step) is brought along the same way: what it no longer holds, or holds drawn otherwise, goes;
 * an arrow delivered on the line and in flight on the branch is made in flight where it stands.
 */
import { type LaneSegment, stateLanes } from '@sd/visualizer/src/annotations.js'
import { drawFaults } from '@sd/visualizer/src/bands.js'
import type { Layout } from '@sd/visualizer/src/layout.js'
import { wireEvent, wireMessage } from '@sd/visualizer/src/mark-events.js'
import type { Diagram, DuplicateMark, VizEvent, VizMessage } from '@sd/visualizer/src/model.js'
import {
  type DrawRange,
  drawEvent,
  drawMessage,
  eventDrawn,
  laneDrawn,
  type MessagePlan,
  paintDuplicate,
  paintLane,
  planEvent,
  planMessage,
  reaches,
  rewindArrows,
  rewindEvents,
} from '@sd/visualizer/src/paint.js'
import type { Drawing } from '@sd/visualizer/src/render.js'
import type { Tooltip } from '@sd/visualizer/src/tooltip.js'

interface Item<T> {
  key: string
  item: T
  el: SVGElement
}

/** A drawing and what it holds, in the order drawn. */
export interface Synced {
  drawing: Drawing
  /** Of the diagram drawn: what another diagram must share with it to be brought along. */
  shape: string
  /** Its fault bands and mark lines (drawn again when they change). */
  faults: string
  /** Where its layout ends (arrows in flight reach it). */
  endX: number
  /**
   * The arrows in flight the last `sync` moved to the layout's new end or made of delivered
   * ones, with where they now end: their shafts are written only where the step cuts them
   * (`cutShaft`), so their elements still say where they ended before.
   */
  moved: Map<SVGElement, { x2: number; y2: number }>
  /** The diagram's arrows, drawn or not (their plans are the painter's, in the same order). */
  messages: VizMessage[]
  arrows: Item<VizMessage>[]
  events: Item<VizEvent>[]
  duplicates: Item<DuplicateMark>[]
  lanes: Item<LaneSegment>[]
}

/** The lines, the height, the message types (their colours), the histories. */
function shapeOf(d: Diagram, lay: Layout): string {
  return [
    d.processes.join(','),
    lay.height,
    d.messageTypes.join(','),
    d.histories === undefined ? 0 : d.histories.length,
  ].join('|')
}

/** The fault bands and mark lines, each begun and maybe ended. */
function faultsOf(d: Diagram): string {
  const band = (b: { fromSeq: number; toSeq?: number }) => `${b.fromSeq}-${b.toSeq ?? ''}`
  return [
    d.down.map(band).join(','),
    d.paused.map(band).join(','),
    d.partitions.map(band).join(','),
    d.losses.map(band).join(','),
    d.marks.map((m) => m.seq).join(','),
  ].join('|')
}

/**
 * What an arrow is drawn as, but for its label and, in flight, where the layout ends (such an
 * arrow is drawn bare, `inFlightBare`, and moved along).
 */
const arrowKey = (m: VizMessage) =>
  `${m.id}/${m.copy}/${m.outcome}/${m.seq}/${m.duplicated ? 1 : 0}`
const laneKey = (s: LaneSegment, lay: Layout) =>
  `${s.process}/${s.state}/${s.fromSeq}/${s.toSeq ?? `open to ${lay.endX}`}`
const eventKey = (e: VizEvent, plan: boolean | undefined) => `${e.id}/${plan}`
const shownKey = (key: string, shown: boolean) => `${key}|${shown ? 1 : 0}`

/** The bookkeeping of a drawing `renderDiagram` made of `d` with `labelsOverAll`. */
export function syncedOf(drawing: Drawing, d: Diagram, lay: Layout): Synced {
  const plans = drawing.painter.plans
  const arrows: Item<VizMessage>[] = []
  d.messages.forEach((m, i) => {
    const el = drawing.messages.get(m)
    if (el) arrows.push({ key: shownKey(arrowKey(m), plans.messages[i]!.shown), item: m, el })
  })
  // As drawn (`orderArrows`).
  arrows.sort((a, b) => drawOrder(a.item, b.item))
  const events: Item<VizEvent>[] = []
  d.events.forEach((e, i) => {
    const el = drawing.events.get(e)
    if (el) events.push({ key: eventKey(e, plans.events[i]), item: e, el })
  })
  const duplicates: Item<DuplicateMark>[] = []
  for (const dup of d.duplicates) {
    const el = drawing.duplicates.get(dup)
    if (el) duplicates.push({ key: String(dup.id), item: dup, el })
  }
  return {
    drawing,
    shape: shapeOf(d, lay),
    faults: faultsOf(d),
    endX: lay.endX,
    moved: new Map(),
    messages: d.messages,
    arrows,
    events,
    duplicates,
    lanes: drawing.lanes.map(({ seg, rect }) => ({ key: laneKey(seg, lay), item: seg, el: rect })),
  }
}

/**
 * Brings `s` to the diagram `d` (the same line, maybe longer) laid out as `lay`, drawn over
 * `range`; false, with nothing changed, when it must be drawn afresh.
 */
export function sync(
  s: Synced,
  d: Diagram,
  lay: Layout,
  range: DrawRange | undefined,
  tooltip: Tooltip,
): boolean {
  if (shapeOf(d, lay) !== s.shape) return false
  const { drawing } = s
  const p = drawing.painter
  Object.assign(p, { d, lay, range })
  drawing.range = range
  const { svg } = drawing
  sizeSvg(svg, lay)
  svg.setAttribute('aria-label', `space-time diagram: ${d.title}`)
  const group = (name: string) => svg.querySelector<SVGGElement>(`:scope > g.${name}`)!
  // New items are drawn into it, out of the page, then put in place together (`reconcile`).
  const scratch = document.createElementNS(svg.namespaceURI, 'g') as SVGGElement
  for (const line of group('lines').querySelectorAll('line'))
    line.setAttribute('x2', String(lay.endX))

  // Fault bands and mark lines, first in their group (before the state lanes): few, drawn again
  // when one begins or ends (a crash, a partition chosen at the live end).
  const faults = faultsOf(d)
  if (faults !== s.faults) {
    const bands = group('bands')
    for (const old of [...bands.children]) if (!old.classList.contains('lane')) old.remove()
    const fresh = document.createElementNS(svg.namespaceURI, 'g') as SVGGElement
    // Between the axis and the lowest line, as `renderDiagram` draws them.
    drawing.faults = drawFaults(d, lay, fresh, 26, lay.height - 16)
    drawing.down = drawing.faults.down
    drawing.partitions = drawing.faults.partitions
    bands.insertBefore(fresh, bands.firstChild)
    fresh.replaceWith(...fresh.childNodes)
    s.faults = faults
  }

  // Arrows: planned again from the first that changed; drawn where they reach into the range.
  // Drawn bare, an arrow in flight takes no room for a label, so the labels shown are decided by
  // the arrows settled (delivered, dropped) alone, in order: those are planned again only from the
  // first that differs from the line drawn (a branch keeps them all: they are the first of the
  // line's), those in flight afresh (cheap: where they lie).
  const before = p.plans.messages
  const settledBefore: number[] = []
  s.messages.forEach((m, i) => {
    if (m.outcome !== 'in-flight') settledBefore.push(i)
  })
  // A plan kept names the down band its drop labelled: the band of this diagram that it is.
  const downNow = new Map(d.down.map((b) => [`${b.process} ${b.fromSeq}`, b]))
  const plans: MessagePlan[] = []
  const kept: MessagePlan[] = []
  let matching = true
  let remapped = false
  d.messages.forEach((m, i) => {
    if (m.outcome === 'in-flight') return
    const j = settledBefore[kept.length]
    const plan = matching && j !== undefined && sameArrow(s.messages[j]!, m) ? before[j] : undefined
    const band = plan?.claim?.band
    const bandNow = band && downNow.get(`${band.process} ${band.fromSeq}`)
    if (plan && (!band || bandNow)) {
      if (band && bandNow !== band) {
        plan.claim!.band = bandNow
        remapped = true
      }
      plans[i] = plan
      kept.push(plan)
      return
    }
    // The first that differs: the labels those kept show, then this one and the rest planned.
    if (matching && (kept.length < settledBefore.length || remapped)) rewindArrows(p, kept)
    matching = false
    plans[i] = planMessage(p, m)
  })
  if (matching && (kept.length < settledBefore.length || remapped)) rewindArrows(p, kept)
  d.messages.forEach((m, i) => {
    if (m.outcome === 'in-flight') plans[i] = planMessage(p, m)
  })
  p.plans.messages = plans
  s.messages = d.messages
  // Arrows in flight kept reach the layout's end: moved there (their shafts are written where
  // the step cuts them).
  s.moved = new Map()
  if (lay.endX !== s.endX) {
    const drawnNow = new Map(s.arrows.map((a) => [a.key, a.el]))
    d.messages.forEach((m, i) => {
      if (m.outcome !== 'in-flight') return
      const plan = plans[i]!
      const g = drawnNow.get(shownKey(arrowKey(m), plan.shown))
      if (g) s.moved.set(g, { x2: plan.x2, y2: plan.yEnd })
    })
    s.endX = lay.endX
  }
  const arrows = group('arrows')
  const wantArrows: Wanted<VizMessage>[] = []
  const inFlight: Array<{ w: Wanted<VizMessage>; plan: MessagePlan }> = []
  d.messages.forEach((m, i) => {
    const plan = plans[i]!
    if (!reaches(p, plan.x1, plan.x2 + 8)) return
    const w: Wanted<VizMessage> = {
      key: shownKey(arrowKey(m), plan.shown),
      item: m,
      make: () => {
        const g = drawMessage(p, m, plan, scratch)
        wireMessage(d, m, g, tooltip)
        return g
      },
    }
    wantArrows.push(w)
    if (m.outcome === 'in-flight') inFlight.push({ w, plan })
  })
  wantArrows.sort((a, b) => drawOrder(a.item, b.item))
  // Arrows delivered on the line drawn and in flight on this one (a branch cut back before their
  // delivery, hundreds on a large run): made arrows in flight where they stand (arrows are drawn
  // in the order of their sends, so the arrow keeps its place), not drawn again nor moved, which
  // would make the browser style and lay them out afresh.
  const drawnKeys = new Set(s.arrows.map((a) => a.key))
  let delivered: Map<string, Item<VizMessage>> | undefined
  for (const { w, plan } of inFlight) {
    if (drawnKeys.has(w.key)) continue
    delivered ??= new Map(
      s.arrows.flatMap((a) => (a.item.outcome === 'deliver' ? [[identity(a.item), a]] : [])),
    )
    const was = delivered.get(identity(w.item))
    if (!was) continue
    inFlightFrom(w.item, was.el)
    wireMessage(d, w.item, was.el as SVGGElement, tooltip)
    was.key = w.key
    was.item = w.item
    s.moved.set(was.el, { x2: plan.x2, y2: plan.yEnd })
  }
  s.arrows = reconcile(arrows, s.arrows, wantArrows, null)

  // Marks (after the duplicates' signs), planned once each: a mark never changes. A line cut
  // back (a branch) has fewer, the first of the line's: their plans kept, the room their labels
  // take on each line made theirs.
  if (p.plans.events.length > d.events.length) rewindEvents(p, d.events, d.events.length)
  for (const e of d.events.slice(p.plans.events.length)) p.plans.events.push(planEvent(p, e))
  const marks = group('marks')
  const wantEvents: Wanted<VizEvent>[] = []
  d.events.forEach((e, i) => {
    if (!eventDrawn(p, e)) return
    const plan = p.plans.events[i]
    wantEvents.push({
      key: eventKey(e, plan),
      item: e,
      make: () => {
        const g = drawEvent(p, e, plan, scratch)
        wireEvent(
          d,
          e,
          g,
          tooltip,
          () => {},
          () => undefined,
        )
        return g
      },
    })
  })
  s.events = reconcile(marks, s.events, wantEvents, null)
  const wantDuplicates: Wanted<DuplicateMark>[] = []
  for (const dup of d.duplicates) {
    const x = lay.x[dup.seq]!
    if (reaches(p, x, x))
      wantDuplicates.push({
        key: String(dup.id),
        item: dup,
        make: () => paintDuplicate(p, dup, scratch)!,
      })
  }
  s.duplicates = reconcile(marks, s.duplicates, wantDuplicates, s.events[0]?.el ?? null)

  // State lanes, after the fault bands.
  const wantLanes: Wanted<LaneSegment>[] = []
  const bands = group('bands')
  for (const seg of stateLanes(d))
    if (laneDrawn(p, seg))
      wantLanes.push({ key: laneKey(seg, lay), item: seg, make: () => paintLane(p, seg, scratch)! })
  s.lanes = reconcile(bands, s.lanes, wantLanes, null)

  drawing.messages = new Map(s.arrows.map((a) => [a.item, a.el as SVGGElement]))
  drawing.events = new Map(s.events.map((a) => [a.item, a.el as SVGGElement]))
  drawing.duplicates = new Map(s.duplicates.map((a) => [a.item, a.el as SVGGElement]))
  drawing.lanes = s.lanes.map((l) => ({ seg: l.item, rect: l.el as SVGRectElement }))
  return true
}

const identity = (m: VizMessage) => `${m.id}/${m.copy}`

/** The drawing's width grows by this many pixels at a time (64 steps of the layout's). */
const WIDTH_STEP = 1024

/**
 * The drawing's size, in whole pixels, and its viewBox the same: one unit one pixel (a viewBox of
 * the layout's own width, fractional, scaled the whole drawing by a hair that changed with every
 * step). Its width is the layout's rounded up to `WIDTH_STEP`, so that a step at the live end
 * seldom makes it wider: the browser lays out the whole drawing when it does (13 ms on the
 * 5,000-event run). Written only when it changes.
 */
export function sizeSvg(svg: SVGSVGElement, lay: Layout): void {
  const width = String(Math.ceil(lay.width / WIDTH_STEP) * WIDTH_STEP)
  const height = String(Math.ceil(lay.height))
  const viewBox = `0 0 ${width} ${height}`
  if (svg.getAttribute('viewBox') === viewBox) return
  svg.setAttribute('viewBox', viewBox)
  svg.setAttribute('width', width)
  svg.setAttribute('height', height)
}

/** The same arrow drawn the same way (`arrowKey`'s fields), compared without making its key. */
const sameArrow = (a: VizMessage, b: VizMessage) =>
  a.id === b.id &&
  a.copy === b.copy &&
  a.outcome === b.outcome &&
  a.seq === b.seq &&
  !!a.duplicated === !!b.duplicated

/**
 * The order arrows are drawn in: by their sends, then copy and id (a total order), so that an
 * arrow stands in the same place whether its message is delivered yet or still in flight (the
 * diagram lists a message by its delivery, or by its send while in flight).
 */
export function drawOrder(a: VizMessage, b: VizMessage): number {
  return (
    (a.send?.seq ?? a.seq) - (b.send?.seq ?? b.seq) ||
    a.copy - b.copy ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  )
}

/** `renderDiagram`'s arrows put in `drawOrder`, before the drawing is shown. */
export function orderArrows(drawing: Drawing): void {
  const arrows = drawing.svg.querySelector(':scope > g.arrows')!
  const sorted = [...drawing.messages].sort(([a], [b]) => drawOrder(a, b))
  arrows.append(...sorted.map(([, g]) => g))
}

/**
 * The arrow `drawMessage` draws of `m` in flight (bare: its shafts alone), made of the same
 * message's arrow delivered (`was`: the same shafts from the same send, the same colour): its
 * outcome, its head and labels gone. Its shafts are written where the step cuts them.
 */
function inFlightFrom(m: VizMessage, was: SVGElement): SVGGElement {
  const g = was as SVGGElement
  const more = `${m.duplicated ? ' duplicated' : ''}${m.resendOf === undefined ? '' : ' resend'}`
  // How the step shows it (`cutShaft` adds them after the drawing's own) kept as it is, in flight
  // at the branch's step already: only its outcome changes for the browser.
  const shown = ['off-time', 'flying'].filter((c) => g.classList.contains(c))
  g.setAttribute('class', [`msg outcome-in-flight${more}`, ...shown].join(' '))
  g.setAttribute('data-outcome', 'in-flight')
  // Drawn as line, line, [resend mark], head, label: the two lines stay.
  while (g.children.length > 2) g.lastElementChild!.remove()
  return g
}

interface Wanted<T> {
  key: string
  item: T
  make: () => SVGElement
}

/**
 * Makes the elements `current` (in `parent`, in order, before `anchor`) those `wanted` lists, in
 * its order: the ones whose key is wanted stay, the others go, the missing ones are drawn where
 * they belong. Both lists follow the order drawn, so what stays keeps its place.
 */
function reconcile<T>(
  parent: SVGGElement,
  current: readonly Item<T>[],
  wanted: readonly Wanted<T>[],
  anchor: Element | null,
): Item<T>[] {
  const keys = new Set(wanted.map((w) => w.key))
  const kept: Item<T>[] = []
  for (const c of current) {
    if (keys.has(c.key)) kept.push(c)
    else c.el.remove()
  }
  const out: Item<T>[] = []
  // The new elements between two kept ones, put in at once (hundreds at a branch's end).
  let batch: SVGElement[] = []
  const putIn = (before: Element | null) => {
    if (batch.length === 1) parent.insertBefore(batch[0]!, before)
    else if (batch.length > 1) {
      const fragment = document.createDocumentFragment()
      fragment.append(...batch)
      parent.insertBefore(fragment, before)
    }
    batch = []
  }
  let k = 0
  for (const w of wanted) {
    const here = kept[k]
    if (here && here.key === w.key) {
      putIn(here.el)
      out.push({ ...here, item: w.item })
      k++
      continue
    }
    const el = w.make()
    batch.push(el)
    out.push({ key: w.key, item: w.item, el })
  }
  putIn(kept[k]?.el ?? anchor)
  // Not met in order (cannot happen when both follow the order drawn): not kept.
  for (const c of kept.slice(k)) c.el.remove()
  return out
}
