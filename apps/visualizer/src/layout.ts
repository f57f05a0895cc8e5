import type { Diagram, ProcessId } from './model.js'

/**
 * `compact`: instants in order, the gap between two growing with the logarithm of the time
 * between them, so bursts stay readable and long waits do not stretch the page. `time`: x
 * proportional to virtual time. In both, items on one line are at least `STEP` apart, in trace
 * order, and a delivery is drawn after its send, so no arrow points back in time.
 */
export type LayoutMode = 'compact' | 'time'

export const STEP = 16
/** Room between process lines: more when there are few, so arrows keep a readable slope. */
export function rowGap(processes: number): number {
  return processes <= 3 ? 96 : processes <= 5 ? 80 : 64
}
export const LEFT = 96
export const TOP = 56
const RIGHT = 120
const MAX_GAP = 60

export interface Layout {
  /** x of each timeline item, by seq. */
  x: number[]
  /** y of each process line. */
  y: Map<ProcessId, number>
  /** Where process lines end (in-flight arrows end there too). */
  endX: number
  width: number
  height: number
}

/** The extra room between two successive instants `dt` apart (ms, or steps for logs). */
export function gapFor(dt: number): number {
  return Math.min(MAX_GAP, 8 * Math.log2(1 + Math.max(0, dt)))
}

export function layout(diagram: Diagram, mode: LayoutMode = 'compact'): Layout {
  const fold = newFold(diagram, mode)
  return placeItems(fold, diagram)
}

/**
 * The layout's walk over the timeline, kept so that items appended later (a run that grows) are
 * placed as `layout` would place them: in compact spacing an item's x depends only on the items
 * before it. In time spacing the scale depends on the whole run, so only compact ones grow.
 */
export interface LayoutFold {
  mode: LayoutMode
  x: number[]
  t0: number
  scale: number
  nextFree: Map<ProcessId, number>
  floor: number
  maxX: number
  prevT?: number
  groupX: number
}

function newFold(diagram: Diagram, mode: LayoutMode): LayoutFold {
  const items = diagram.timeline
  const t0 = items.length > 0 ? items[0]!.t : 0
  const span = items.length > 0 ? items[items.length - 1]!.t - t0 : 0
  const scale = span > 0 ? Math.min(200, Math.max(900, items.length * 10) / span) : 0
  return {
    mode,
    x: [],
    t0,
    scale,
    nextFree: new Map(),
    floor: LEFT,
    maxX: LEFT - STEP,
    groupX: LEFT,
  }
}

/** A compact layout of `diagram` and the walk that made it, to grow with `growLayout`. */
export function compactLayout(diagram: Diagram): { layout: Layout; fold: LayoutFold } {
  const fold = newFold(diagram, 'compact')
  return { layout: placeItems(fold, diagram), fold }
}

/** The compact layout of `diagram`, whose timeline extends the one `fold` has walked. */
export function growLayout(fold: LayoutFold, diagram: Diagram): Layout {
  if (fold.mode !== 'compact') throw new Error('only a compact layout grows')
  return placeItems(fold, diagram)
}

/** Places the timeline's items `fold` has not placed yet; the layout of all of them. */
function placeItems(f: LayoutFold, diagram: Diagram): Layout {
  const y = new Map<ProcessId, number>()
  const gap = rowGap(diagram.processes.length)
  diagram.processes.forEach((p, i) => {
    y.set(p, TOP + i * gap)
  })
  const items = diagram.timeline
  const { x, mode, nextFree } = f
  for (let i = x.length; i < items.length; i++) {
    const item = items[i]!
    if (mode === 'time') f.groupX = LEFT + (item.t - f.t0) * f.scale
    else if (f.prevT !== undefined && item.t !== f.prevT)
      f.groupX = Math.max(f.groupX, f.maxX + STEP + gapFor(item.t - f.prevT))
    f.prevT = item.t
    let at = Math.max(f.groupX, f.floor)
    if (item.process === undefined) at = Math.max(at, f.maxX + STEP)
    else at = Math.max(at, nextFree.get(item.process) ?? LEFT)
    if (item.after !== undefined && item.after < item.seq) at = Math.max(at, x[item.after]! + STEP)
    x[item.seq] = at
    if (item.process === undefined) {
      // A partition or heal: what comes after it on any line is drawn after it.
      f.floor = at + STEP
    } else nextFree.set(item.process, at + STEP)
    f.maxX = Math.max(f.maxX, at)
  }
  const endX = Math.max(LEFT + 200, f.maxX + 3 * STEP)
  return {
    x: x.slice(),
    y,
    endX,
    width: endX + RIGHT,
    height: TOP + Math.max(0, diagram.processes.length - 1) * gap + 48,
  }
}
