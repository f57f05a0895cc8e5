/// <reference lib="dom" />
/**
 * The arrows of the line drawn, shown at a step: hidden before their send, drawn as far as the
 * step while in flight, whole after. An arrow in flight at the step is drawn solid and lighter,
 * without its head and labels (`lab.css`), not dashed: the browser dashes a line over its whole
 * length at every tile it paints, and the 250 arrows in flight at the live end of the 5,000-event
 * run, all cut again at every step, took it 35 ms of raster per step more than solid ones. A
 * dashed arrow (a drop, a resend: dashed when whole) that comes into the stretch drawn from far
 * left of it begins at the stretch's left edge, its dashes kept in phase; a solid one keeps its
 * start, so that only its end is written as the step moves.
 */
import type { VizMessage } from '@sd/visualizer/src/model.js'

/** An arrow's lines and where they end in the whole line (cut at the step while in flight). */
export interface Shaft {
  g: SVGGElement
  sendSeq: number
  seq: number
  /** Dashed when drawn whole (a drop, a resend): its dashes are kept in phase when cut. */
  dashed: boolean
  lines: SVGLineElement[]
  x1: number
  y1: number
  x2: number
  y2: number
}

/** Shafts already read off their arrows, so that a drawing grown reads only its new arrows. */
const shaftOf = new WeakMap<SVGGElement, Omit<Shaft, 'seq'>>()

/**
 * Where each arrow's lines were last put and how it was last shown, so that a step writes only
 * what changes (along the line, a few arrows; at the live end, the ends of those in flight).
 */
const putAt = new WeakMap<SVGGElement, Put>()

interface Put {
  x1: number
  y1: number
  x2: number
  y2: number
  /** Its classes as last toggled. */
  off: boolean
  flying: boolean
}

/**
 * The arrows drawn, read as drawn; `moved` were moved to the line's new end since, or made in
 * flight, and end where it says (their elements still hold where they ended before; their start,
 * which may be cut on screen, is kept). `end`: the line's timeline length.
 */
export function shaftsOf(
  messages: Map<VizMessage, SVGGElement>,
  moved: ReadonlyMap<SVGElement, { x2: number; y2: number }>,
  end: number,
): Shaft[] {
  const before = new Map<SVGGElement, Omit<Shaft, 'seq'>>()
  for (const g of moved.keys()) {
    const s = shaftOf.get(g as SVGGElement)
    if (s) before.set(s.g, s)
    shaftOf.delete(g as SVGGElement)
    // Its lines are where they were put, and its classes as they were toggled (nothing else
    // writes them: an arrow made in flight keeps how it was shown).
  }
  const shafts: Shaft[] = []
  for (const [m, g] of messages) {
    let s = shaftOf.get(g)
    if (!s) {
      const was = before.get(g)
      const lines = was?.lines ?? [...g.querySelectorAll<SVGLineElement>('line')]
      const first = lines[0]
      if (!first) continue
      const to = moved.get(g)
      s = {
        g,
        sendSeq: m.send?.seq ?? m.seq,
        // An arrow in flight at the line's end is always drawn in flight (solid) in the lab.
        dashed: m.outcome === 'drop' || m.resendOf !== undefined,
        lines,
        x1: was?.x1 ?? Number(first.getAttribute('x1')),
        y1: was?.y1 ?? Number(first.getAttribute('y1')),
        x2: to?.x2 ?? Number(first.getAttribute('x2') ?? 0),
        y2: to?.y2 ?? Number(first.getAttribute('y2') ?? 0),
      }
      shaftOf.set(g, s)
    }
    // In flight at the line's end: cut at every step before the end, whole at it.
    shafts.push({ ...s, seq: m.outcome === 'in-flight' ? end : m.seq })
  }
  return shafts
}

/**
 * An arrow at step `now`: hidden before its send, whole from its delivery or drop, and between
 * them drawn as far as `nowX` (in flight at the step), without its head and labels. A dashed one
 * (a drop, a resend) is begun at `from` (the stretch's left edge) when it starts left of it.
 */
export function cutShaft(s: Shaft, now: number, nowX: number, from?: number): void {
  const off = s.sendSeq > now
  const flying = !off && now < s.seq
  const at = putAt.get(s.g)
  if (at?.off !== off) s.g.classList.toggle('off-time', off)
  if (at?.flying !== flying) s.g.classList.toggle('flying', flying)
  let { x2, y2 } = s
  if (flying) {
    const f = x2 > s.x1 ? Math.min(1, Math.max(0, (nowX - s.x1) / (x2 - s.x1))) : 0
    x2 = s.x1 + (x2 - s.x1) * f
    y2 = s.y1 + (y2 - s.y1) * f
  }
  let x1 = s.x1
  let y1 = s.y1
  let offset = 0
  if (s.dashed && from !== undefined && x1 < from && x2 > x1) {
    const t = (Math.min(from, x2) - x1) / (x2 - x1)
    x1 += (x2 - x1) * t
    y1 += (y2 - y1) * t
    // Of the cut start alone, so that the same start is always the same offset.
    offset = Math.hypot(x1 - s.x1, y1 - s.y1)
  }
  // Along the line only the end of an arrow in flight moves: its start is written when it changes.
  const start = !at || at.x1 !== x1 || at.y1 !== y1
  const end = !at || at.x2 !== x2 || at.y2 !== y2
  if (!at) putAt.set(s.g, { x1, y1, x2, y2, off, flying })
  else {
    at.x1 = x1
    at.y1 = y1
    at.x2 = x2
    at.y2 = y2
    at.off = off
    at.flying = flying
  }
  if (!start && !end) return
  for (const l of s.lines) {
    if (start) {
      l.setAttribute('x1', String(x1))
      l.setAttribute('y1', String(y1))
      if (s.dashed) {
        if (offset > 0) l.setAttribute('stroke-dashoffset', String(offset))
        else l.removeAttribute('stroke-dashoffset')
      }
    }
    if (end) {
      l.setAttribute('x2', String(x2))
      l.setAttribute('y2', String(y2))
    }
  }
}
