/**
 * Where labels already stand on the drawing, so that a new one that would overlap one of them is
 * shown on hover instead: rectangles kept in a grid of cells, so a check looks at a few
 * neighbours rather than every label drawn.
 */
const CELL = 64

interface Box {
  x: number
  y: number
  w: number
  h: number
}

export class LabelSpace {
  /** By cell, its column and row in one number (`cellKey`): a text key cost a string per cell. */
  private readonly cells = new Map<number, Box[]>()

  /** Takes the box if it overlaps no box taken before (and says so); leaves it otherwise. */
  claim(x: number, y: number, w: number, h: number): boolean {
    const box = { x, y, w, h }
    const i0 = Math.floor(x / CELL)
    const i1 = Math.floor((x + w) / CELL)
    const j0 = Math.floor(y / CELL)
    const j1 = Math.floor((y + h) / CELL)
    for (let i = i0; i <= i1; i++)
      for (let j = j0; j <= j1; j++)
        for (const other of this.cells.get(cellKey(i, j)) ?? [])
          if (overlaps(box, other)) return false
    for (let i = i0; i <= i1; i++)
      for (let j = j0; j <= j1; j++) {
        const key = cellKey(i, j)
        const list = this.cells.get(key)
        if (list) list.push(box)
        else this.cells.set(key, [box])
      }
    return true
  }
}

/** Rows of cells, and columns either side of 0, far beyond any drawing (2^21 cells of 64 px). */
const ROWS = 2 ** 21

/** One number per cell: distinct for every column and row within ±2^20 cells. */
function cellKey(i: number, j: number): number {
  return i * ROWS + (j + ROWS / 2)
}

function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h
}
