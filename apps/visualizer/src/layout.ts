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
  const y = new Map<ProcessId, number>()
  const gap = rowGap(diagram.processes.length)
  diagram.processes.forEach((p, i) => {
    y.set(p, TOP + i * gap)
  })
  const items = diagram.timeline
  const x = new Array<number>(items.length).fill(LEFT)
  const t0 = items.length > 0 ? items[0]!.t : 0
  const span = items.length > 0 ? items[items.length - 1]!.t - t0 : 0
  const scale = span > 0 ? Math.min(200, Math.max(900, items.length * 10) / span) : 0

  const nextFree = new Map<ProcessId, number>()
  let floor = LEFT
  let maxX = LEFT - STEP
  let prevT: number | undefined
  let groupX = LEFT
  for (const item of items) {
    if (mode === 'time') groupX = LEFT + (item.t - t0) * scale
    else if (prevT !== undefined && item.t !== prevT)
      groupX = Math.max(groupX, maxX + STEP + gapFor(item.t - prevT))
    prevT = item.t
    let at = Math.max(groupX, floor)
    if (item.process === undefined) at = Math.max(at, maxX + STEP)
    else at = Math.max(at, nextFree.get(item.process) ?? LEFT)
    if (item.after !== undefined && item.after < item.seq) at = Math.max(at, x[item.after]! + STEP)
    x[item.seq] = at
    if (item.process === undefined) {
      // A partition or heal: what comes after it on any line is drawn after it.
      floor = at + STEP
    } else nextFree.set(item.process, at + STEP)
    maxX = Math.max(maxX, at)
  }
  const endX = Math.max(LEFT + 200, maxX + 3 * STEP)
  return {
    x,
    y,
    endX,
    width: endX + RIGHT,
    height: TOP + Math.max(0, diagram.processes.length - 1) * gap + 48,
  }
}
