/// <reference lib="dom" />
import type { LaneSegment } from './annotations.js'
import { arrowLabel, markLabel } from './annotations.js'
import { LabelSpace } from './label-space.js'
import type { Layout } from './layout.js'
import { STEP } from './layout.js'
import { drawMark } from './mark-shapes.js'
import type { Diagram, DownBand, DuplicateMark, VizEvent, VizMessage } from './model.js'
import { el } from './svg.js'
import { fieldOf } from './trace-entries.js'

/**
 * One item of the diagram as SVG (an arrow, a mark, a state lane, a duplicate's sign), as
 * `renderDiagram` draws it, so that a drawing can also be grown item by item (the lab appends the
 * new steps of a run to the drawing it has). What one item's drawing depends on besides the item
 * (the labels already standing, the last label on each line) is the painter's.
 */

/** A stretch of screen x: only marks, arrows and lanes that reach into it are drawn. */
export interface DrawRange {
  from: number
  to: number
}

/** Where labels fall back to hover-only, estimated per character. */
const CHAR = 6.2

export interface Painter {
  d: Diagram
  lay: Layout
  colors: Map<string, string>
  range?: DrawRange
  /** Arrow and drop labels shown so far (a new one that would overlap them is on hover). */
  taken: LabelSpace
  /** Down bands whose drops have their one label. */
  labelledBands: Set<DownBand>
  /** Where the last shown mark label of each line ends. */
  labelEnd: Map<string, number>
  /**
   * Labels decided over every arrow and mark, drawn or not (the plans kept in `plans`), so that
   * whether a label shows does not depend on the stretch drawn: a drawing can then take in or
   * let go of items at the stretch's edges without redrawing the rest (the lab does).
   */
  labelsOverAll: boolean
  /**
   * An arrow still in flight drawn bare: its shafts alone, without head, labels or *in flight*
   * sign, and taking no room for a label. For a page that shows it cut at a step and moves it
   * with the end of a growing run (the lab): none of those would show, and moving them along at
   * every step costs the browser as much as the shafts.
   */
  inFlightBare: boolean
  plans: { messages: MessagePlan[]; events: EventPlan[] }
}

/** Where an arrow lies and which of its labels show (its claim taken). */
export interface MessagePlan {
  x1: number
  y1: number
  x2: number
  yEnd: number
  /** The drop label or the arrow label shows (else on hover). */
  shown: boolean
  claim?: LabelClaim
}

/** Whether a mark's label shows (undefined: it has none). */
export type EventPlan = boolean | undefined

/** The label box an arrow took (`LabelSpace.claim`'s arguments), and the band it labelled. */
export interface LabelClaim {
  box: [number, number, number, number]
  band?: DownBand
}

export function newPainter(
  d: Diagram,
  lay: Layout,
  colors: Map<string, string>,
  range?: DrawRange,
  options: { labelsOverAll?: boolean; inFlightBare?: boolean } = {},
): Painter {
  return {
    d,
    lay,
    colors,
    range,
    taken: new LabelSpace(),
    labelledBands: new Set(),
    labelEnd: new Map(),
    labelsOverAll: options.labelsOverAll ?? false,
    inFlightBare: options.inFlightBare ?? false,
    plans: { messages: [], events: [] },
  }
}

/**
 * Makes `p`'s arrow labels those of the arrow plans `kept` alone (the arrows planned after them are
 * planned again), as if only those arrows had been planned.
 */
export function rewindArrows(p: Painter, kept: readonly MessagePlan[]): void {
  p.taken = new LabelSpace()
  p.labelledBands = new Set()
  for (const plan of kept) {
    const c = plan.claim
    if (!c) continue
    p.taken.claim(...c.box)
    if (c.band) p.labelledBands.add(c.band)
  }
}

/**
 * Keeps `p`'s first `count` mark plans and makes its labels' room on each line theirs alone (the
 * marks after them are planned again), as if only those marks had been planned; `events` are the
 * marks planned, in order.
 */
export function rewindEvents(p: Painter, events: readonly VizEvent[], count: number): void {
  p.plans.events.length = count
  p.labelEnd = new Map()
  // The room a line's labels take ends with its last label shown.
  for (let i = count - 1; i >= 0 && p.labelEnd.size < p.d.processes.length; i--) {
    const e = events[i]!
    if (p.plans.events[i] !== true || p.labelEnd.has(e.process)) continue
    p.labelEnd.set(e.process, p.lay.x[e.seq]! + markLabel(e)!.length * CHAR + 6)
  }
}

/** Whether the stretch from x `a` to `b` reaches into the range drawn. */
export function reaches(p: Painter, a: number, b: number): boolean {
  return p.range === undefined || (Math.max(a, b) >= p.range.from && Math.min(a, b) <= p.range.to)
}

/** Where an arrow starts and ends on screen (a drop on the way ends 40% of the way down). */
export function arrowEnds(
  p: Painter,
  m: VizMessage,
): { x1: number; y1: number; x2: number; yEnd: number } {
  const { lay } = p
  const y1 = lay.y.get(m.from)!
  const y2 = lay.y.get(m.to)!
  const x1 = m.send ? lay.x[m.send.seq]! : lay.x[m.seq]! - 2 * STEP
  let x2: number
  let yEnd = y2
  if (m.deliver) x2 = lay.x[m.deliver.seq]!
  else if (m.drop?.atReceiver) x2 = lay.x[m.drop.seq]!
  else if (m.drop) {
    // Dropped on the way: the cross stands 40% of the way to the receiver.
    x2 = Math.max(lay.x[m.drop.seq]!, x1 + 1.5 * STEP)
    yEnd = y1 + (y2 - y1) * 0.4
  } else x2 = lay.endX
  return { x1, y1, x2, yEnd }
}

/** Whether the arrow of `m` is drawn (it reaches into the range). */
export function arrowDrawn(p: Painter, m: VizMessage): boolean {
  const { x1, x2 } = arrowEnds(p, m)
  return reaches(p, x1, x2 + 8)
}

/**
 * The arrow of `m` in `parent`, its label shown where the arrow leaves room for it and it
 * overlaps no other label (on hover otherwise); drops on a crashed receiver: one label per down
 * band. Undefined when the arrow lies outside the range (planned all the same when labels are
 * decided over all arrows).
 */
export function paintMessage(
  p: Painter,
  m: VizMessage,
  parent: Element,
): { g: SVGGElement; claim?: LabelClaim } | undefined {
  const ends = arrowEnds(p, m)
  const inside = reaches(p, ends.x1, ends.x2 + 8)
  if (!inside && !p.labelsOverAll) return undefined
  const plan = planMessage(p, m)
  if (p.labelsOverAll) p.plans.messages.push(plan)
  if (!inside) return undefined
  return { g: drawMessage(p, m, plan, parent), claim: plan.claim }
}

/** The text of an arrow's label (undefined for a drop: its reason is its label). */
function arrowText(m: VizMessage): string {
  return m.outcome === 'drop' ? m.drop!.reason : arrowLabel(m.type, fieldOf(m.send?.raw, 'msg'))
}

/** Where the arrow of `m` lies and whether its label shows, the label's room claimed. */
export function planMessage(p: Painter, m: VizMessage): MessagePlan {
  const { d, taken, labelledBands } = p
  const { x1, y1, x2, yEnd } = arrowEnds(p, m)
  const plan: MessagePlan = { x1, y1, x2, yEnd, shown: false }
  if (m.outcome === 'in-flight' && p.inFlightBare) return plan
  const take = (x: number, y: number, w: number, h: number) => {
    const ok = taken.claim(x, y, w, h)
    if (ok) plan.claim = { box: [x, y, w, h] }
    return ok
  }
  const text = arrowText(m)
  if (m.outcome === 'drop') {
    const band = m.drop!.atReceiver ? downAt(d.down, m.to, m.drop!.seq) : undefined
    plan.shown = band
      ? !labelledBands.has(band) && take(x2 + 7, yEnd - 16, text.length * CHAR, 12)
      : take(x2 + 7, yEnd - 16, text.length * CHAR, 12)
    if (band && plan.shown) {
      labelledBands.add(band)
      plan.claim!.band = band
    }
  } else {
    const lx = (x1 + x2) / 2 + 3
    const ly = (y1 + yEnd) / 2 - 3
    plan.shown =
      Math.hypot(x2 - x1, yEnd - y1) >= text.length * CHAR + 24 &&
      take(lx, ly - 10, text.length * CHAR, 12)
  }
  return plan
}

/** The arrow of `m` as `plan` says, in `parent`. */
export function drawMessage(
  p: Painter,
  m: VizMessage,
  plan: MessagePlan,
  parent: Element,
): SVGGElement {
  const color = p.colors.get(m.type) ?? '#555'
  const { x1, y1, x2, yEnd, shown } = plan
  const g = el(
    'g',
    {
      class: `msg outcome-${m.outcome}${m.duplicated ? ' duplicated' : ''}${m.resendOf === undefined ? '' : ' resend'}`,
      'data-message': m.id,
      'data-outcome': m.outcome,
      'data-copy': m.copy,
      style: `--c:${color}`,
    },
    parent,
  )
  el('line', { x1, y1, x2, y2: yEnd, class: 'hit' }, g)
  el('line', { x1, y1, x2, y2: yEnd, class: 'shaft' }, g)
  if (m.resendOf !== undefined) g.dataset.resend = m.resendOf
  if (m.outcome === 'in-flight' && p.inFlightBare) return g
  if (m.resendOf !== undefined) {
    // The link's retransmission of a dropped message: ↻ at its send.
    el(
      'text',
      { x: x1 - 5, y: y1 - 7, class: 'resend-mark', 'text-anchor': 'end' },
      g,
    ).textContent = '↻'
  }
  if (m.outcome === 'drop') {
    el(
      'path',
      {
        d: `M${x2 - 5},${yEnd - 5}L${x2 + 5},${yEnd + 5}M${x2 + 5},${yEnd - 5}L${x2 - 5},${yEnd + 5}`,
        class: 'cross',
      },
      g,
    )
    el(
      'text',
      {
        x: x2 + 7,
        y: yEnd - 6,
        class: shown ? 'drop-label' : 'drop-label hover-only',
        'data-drop-label': shown ? 'shown' : 'hover',
      },
      g,
    ).textContent = m.drop!.reason
  } else {
    el('polygon', { points: head(x1, y1, x2, yEnd), class: 'head' }, g)
    if (m.outcome === 'in-flight')
      el('text', { x: x2 + 4, y: yEnd - 6, class: 'drop-label' }, g).textContent = 'in flight'
    el(
      'text',
      {
        x: (x1 + x2) / 2 + 3,
        y: (y1 + yEnd) / 2 - 3,
        class: shown ? 'msg-label' : 'msg-label hover-only',
        'data-arrow-label': shown ? 'shown' : 'hover',
      },
      g,
    ).textContent = arrowText(m)
  }
  return g
}

/** Whether the lane of `seg` is drawn (its process has a line, it reaches into the range). */
export function laneDrawn(p: Painter, seg: LaneSegment): boolean {
  const { lay } = p
  if (!lay.y.has(seg.process)) return false
  const x1 = lay.x[seg.fromSeq]!
  const x2 = seg.toSeq === undefined ? lay.endX : lay.x[seg.toSeq]!
  return reaches(p, x1, x2)
}

/** A state lane's rectangle under its process line, or undefined outside the range. */
export function paintLane(
  p: Painter,
  seg: LaneSegment,
  parent: Element,
): SVGRectElement | undefined {
  const { lay } = p
  const y = lay.y.get(seg.process)
  if (y === undefined || !laneDrawn(p, seg)) return undefined
  const x1 = lay.x[seg.fromSeq]!
  const x2 = seg.toSeq === undefined ? lay.endX : lay.x[seg.toSeq]!
  const rect = el(
    'rect',
    {
      class: `lane lane-${seg.state}`,
      'data-lane-state': seg.state,
      'data-lane-process': seg.process,
      x: x1,
      y: y + 6,
      width: Math.max(1, x2 - x1),
      height: 5,
    },
    parent,
  )
  el('title', {}, rect).textContent = `node ${seg.process}: ${seg.state}`
  return rect
}

/** The ⧉ of a message the network duplicated, or undefined outside the range. */
export function paintDuplicate(
  p: Painter,
  dup: DuplicateMark,
  parent: Element,
): SVGGElement | undefined {
  const { lay } = p
  if (!reaches(p, lay.x[dup.seq]!, lay.x[dup.seq]!)) return undefined
  const g = el(
    'g',
    {
      class: 'dup',
      'data-duplicate': dup.messageId,
      transform: `translate(${lay.x[dup.seq]},${lay.y.get(dup.from)! - 12})`,
    },
    parent,
  )
  el('text', { 'text-anchor': 'middle', y: 4 }, g).textContent = '⧉'
  el('title', {}, g).textContent = `message #${dup.messageId} duplicated by the network`
  return g
}

/**
 * The mark of event `e`, its label shown unless it would run into the previous label on its
 * line (on hover then); undefined outside the range (planned all the same when labels are
 * decided over all marks).
 */
export function paintEvent(p: Painter, e: VizEvent, parent: Element): SVGGElement | undefined {
  const inside = eventDrawn(p, e)
  if (!inside && !p.labelsOverAll) return undefined
  const plan = planEvent(p, e)
  if (p.labelsOverAll) p.plans.events.push(plan)
  if (!inside) return undefined
  return drawEvent(p, e, plan, parent)
}

/** Whether the mark of `e` reaches into the range. */
export function eventDrawn(p: Painter, e: VizEvent): boolean {
  const x = p.lay.x[e.seq]!
  return reaches(p, x - 8, x + 8)
}

/** Whether the label of `e` shows (undefined: it has none), the room it takes on its line noted. */
export function planEvent(p: Painter, e: VizEvent): EventPlan {
  const label = markLabel(e)
  if (label === undefined) return undefined
  const x = p.lay.x[e.seq]!
  const room = x >= (p.labelEnd.get(e.process) ?? Number.NEGATIVE_INFINITY)
  if (room) p.labelEnd.set(e.process, x + label.length * CHAR + 6)
  return room
}

/** The mark of `e` as `plan` says, in `parent`. */
export function drawEvent(p: Painter, e: VizEvent, plan: EventPlan, parent: Element): SVGGElement {
  const { lay } = p
  const g = el(
    'g',
    {
      class: `ev kind-${e.kind}`,
      'data-event': e.id,
      'data-kind': e.kind,
      transform: `translate(${lay.x[e.seq]},${lay.y.get(e.process)})`,
      tabindex: 0,
    },
    parent,
  )
  el('circle', { r: 8, class: 'hit' }, g)
  drawMark(e.kind, g, e.messageType ? p.colors.get(e.messageType) : undefined)
  if (plan !== undefined)
    el(
      'text',
      {
        x: 0,
        y: -9,
        'text-anchor': 'start',
        class: plan ? 'mark-label' : 'mark-label hover-only',
        'data-mark-label': plan ? 'shown' : 'hover',
      },
      g,
    ).textContent = markLabel(e)!
  return g
}

/** The band during which `process` is down that holds timeline seq `seq`, if any. */
function downAt(down: readonly DownBand[], process: string, seq: number): DownBand | undefined {
  return down.find(
    (b) => b.process === process && b.fromSeq <= seq && (b.toSeq === undefined || seq <= b.toSeq),
  )
}

/** The arrowhead at (x2, y2), pointing from (x1, y1). */
export function head(x1: number, y1: number, x2: number, y2: number): string {
  const a = Math.atan2(y2 - y1, x2 - x1)
  const l = 8
  const w = 4
  const bx = x2 - l * Math.cos(a)
  const by = y2 - l * Math.sin(a)
  const px = -Math.sin(a) * w
  const py = Math.cos(a) * w
  return `${x2},${y2} ${(bx + px).toFixed(1)},${(by + py).toFixed(1)} ${(bx - px).toFixed(1)},${(by - py).toFixed(1)}`
}
