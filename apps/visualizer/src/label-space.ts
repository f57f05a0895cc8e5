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
  private readonly cells = new Map<string, Box[]>()

  /** Takes the box if it overlaps no box taken before (and says so); leaves it otherwise. */
  claim(x: number, y: number, w: number, h: number): boolean {
    const box = { x, y, w, h }
    const keys = this.keys(box)
    for (const key of keys)
      for (const other of this.cells.get(key) ?? []) if (overlaps(box, other)) return false
    for (const key of keys) {
      const list = this.cells.get(key)
      if (list) list.push(box)
      else this.cells.set(key, [box])
    }
    return true
  }

  private keys(b: Box): string[] {
    const out: string[] = []
    for (let i = Math.floor(b.x / CELL); i <= Math.floor((b.x + b.w) / CELL); i++)
      for (let j = Math.floor(b.y / CELL); j <= Math.floor((b.y + b.h) / CELL); j++)
        out.push(`${i},${j}`)
    return out
  }
}

function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h
}
