/** Columns between the time and the first node. */
export const GAP = 2
/** A full cell (`→2 #15 rumour`, with a note under it if need be) needs this many columns. */
const FULL_MIN_COLUMN = 16
/** Wider columns only add blank space. */
const FULL_MAX_COLUMN = 28
/** The least a compact column can be: `→2…` and a space. */
const COMPACT_MIN_COLUMN = 4
const TIME_LABEL = 't (ms)'

/** How the diagram uses the terminal's width. */
export interface Layout {
  /** Compact: narrower columns, one line per cell, abbreviated cells. */
  compact: boolean
  /** Digits after the point in the time column. */
  decimals: number
  /** Columns of the time column. */
  timeWidth: number
  /** Columns of each node's column, its separating space included. */
  column: number
  /** Columns of a whole row. */
  total: number
  /** False when even the compact view is wider than the terminal. */
  fits: boolean
}

/**
 * The full view when every node gets FULL_MIN_COLUMN columns within `width`; otherwise the
 * compact view with the widest columns that fit (never below COMPACT_MIN_COLUMN).
 */
export function chooseLayout(nodes: number, width: number, lastTime: number): Layout {
  const full = measure(nodes, width, lastTime, 3, FULL_MIN_COLUMN, FULL_MAX_COLUMN)
  if (full.fits) return { ...full, compact: false }
  const compact = measure(nodes, width, lastTime, 1, COMPACT_MIN_COLUMN, FULL_MIN_COLUMN - 1)
  return { ...compact, compact: true }
}

/** The narrowest terminal the full view fits in. */
export function fullViewWidth(nodes: number, lastTime: number): number {
  return measure(nodes, Number.POSITIVE_INFINITY, lastTime, 3, FULL_MIN_COLUMN, FULL_MIN_COLUMN)
    .total
}

function measure(
  nodes: number,
  width: number,
  lastTime: number,
  decimals: number,
  min: number,
  max: number,
): Omit<Layout, 'compact'> {
  const timeWidth = Math.max(TIME_LABEL.length, lastTime.toFixed(decimals).length)
  const room = Math.floor((width - timeWidth - GAP) / Math.max(1, nodes))
  const column = Math.min(max, Math.max(min, room))
  const total = timeWidth + GAP + nodes * column
  return { decimals, timeWidth, column, total, fits: room >= min }
}

export function timeLabel(layout: Layout): string {
  return TIME_LABEL.padStart(layout.timeWidth)
}
