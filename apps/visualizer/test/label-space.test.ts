import { describe, expect, it } from 'vitest'
import { LabelSpace } from '../src/label-space.js'

describe('LabelSpace', () => {
  it('takes a box that overlaps none taken, refuses one that overlaps, across cells and far out', () => {
    const space = new LabelSpace()
    expect(space.claim(10, 10, 50, 12)).toBe(true)
    expect(space.claim(55, 15, 30, 12)).toBe(false)
    // Touching edges do not overlap.
    expect(space.claim(60, 10, 40, 12)).toBe(true)
    // A box spanning several cells meets one taken in any of them.
    expect(space.claim(-100, -20, 400, 31)).toBe(false)
    expect(space.claim(-100, -20, 400, 29)).toBe(true)
    expect(space.claim(-30, -5, 10, 10)).toBe(false)
    // Far along a long run, and rows apart: the same column, another row.
    expect(space.claim(60_000, 500, 80, 12)).toBe(true)
    expect(space.claim(60_050, 505, 80, 12)).toBe(false)
    expect(space.claim(60_050, 64 * 40, 80, 12)).toBe(true)
  })

  it('matches a plain overlap check over every box taken, box by box', () => {
    const space = new LabelSpace()
    const taken: Array<[number, number, number, number]> = []
    // A fixed pseudo-random sequence (no Math.random): boxes over a wide strip.
    let s = 12345
    const next = () => {
      s = (s * 1103515245 + 12345) % 2 ** 31
      return s / 2 ** 31
    }
    for (let k = 0; k < 2000; k++) {
      const box: [number, number, number, number] = [
        next() * 20_000 - 500,
        next() * 1000 - 50,
        5 + next() * 120,
        12,
      ]
      const free = taken.every(
        ([x, y, w, h]) =>
          !(box[0] < x + w && x < box[0] + box[2] && box[1] < y + h && y < box[1] + box[3]),
      )
      expect(space.claim(...box)).toBe(free)
      if (free) taken.push(box)
    }
    expect(taken.length).toBeGreaterThan(500)
  })
})
