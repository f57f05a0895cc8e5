import { describe, expect, it } from 'vitest'
import { formatDuration, niceStep, ticks, timeScale } from '../src/axis.js'
import { LEFT, layout } from '../src/layout.js'
import { traceToDiagram } from '../src/trace.js'
import {
  clampWindow,
  DRAW_ALL_BELOW,
  drawRange,
  fullWindow,
  MIN_ROW_GAP,
  menuWindow,
  outsideDrawn,
  rowYs,
  screenLayout,
  VIEW_RIGHT,
  viewFor,
  windowOf,
  zoomWindow,
} from '../src/viewport.js'

function pingPong(n: number, rounds: number) {
  const nodes = Array.from({ length: n }, (_, i) => i + 1)
  const events: Record<string, unknown>[] = []
  let id = 0
  for (let r = 0; r < rounds; r++) {
    const from = nodes[r % n]!
    const to = nodes[(r + 1) % n]!
    id++
    events.push({ t: r * 250, type: 'send', id, from, to, msg: { type: 'ping' } })
    events.push({ t: r * 250 + 3, type: 'deliver', id, from, to, sentAt: r * 250 })
  }
  return traceToDiagram({ nodes, events })
}

describe('the detail view', () => {
  it('spreads the process lines over the pane height, never closer than MIN_ROW_GAP', () => {
    const ys = rowYs(3, 700)
    expect(ys[2]! - ys[0]!).toBeGreaterThan(0.75 * 700 - 100)
    expect(ys[1]! - ys[0]!).toBeCloseTo(ys[2]! - ys[1]!)
    const many = rowYs(64, 500)
    expect(many[1]! - many[0]!).toBe(MIN_ROW_GAP)
    expect(rowYs(1, 500)).toHaveLength(1)
    expect(rowYs(0, 500)).toEqual([])
  })

  it('shows a window across the pane and reads the window back from the scroll', () => {
    for (const w of [
      { from: LEFT, to: 5000 },
      { from: 1234.5, to: 1300 },
      { from: 40_000, to: 90_000 },
    ]) {
      const { sx, scrollLeft } = viewFor(w, 1200)
      const back = windowOf(scrollLeft, 1200, sx)
      expect(back.from).toBeCloseTo(w.from, 6)
      expect(back.to).toBeCloseTo(w.to, 6)
      expect((w.to - w.from) * sx).toBeCloseTo(1200 - LEFT - VIEW_RIGHT, 6)
    }
  })

  it('zooms around a point, and keeps a moved window inside the run at its width', () => {
    const z = zoomWindow({ from: 100, to: 300 }, 2, 150)
    expect(z).toEqual({ from: 125, to: 225 })
    const full = { from: 96, to: 1000 }
    expect(clampWindow({ from: 950, to: 1150 }, full, 10)).toEqual({ from: 800, to: 1000 })
    expect(clampWindow({ from: 0, to: 100 }, full, 10)).toEqual({ from: 96, to: 196 })
    expect(clampWindow({ from: 500, to: 501 }, full, 10)).toEqual({ from: 500, to: 510 })
    expect(clampWindow({ from: 0, to: 5000 }, full, 10)).toEqual(full)
  })

  it('scales x only, so the whole run fits the width, and lines fill the height', () => {
    const d = pingPong(3, 400)
    const base = layout(d, 'compact')
    const { sx } = viewFor(fullWindow(base), 1000)
    const lay = screenLayout(base, d.processes, sx, 600)
    expect(lay.endX).toBeCloseTo(1000 - VIEW_RIGHT, 6)
    expect(Math.max(...lay.x)).toBeLessThanOrEqual(lay.endX)
    const ys = [...lay.y.values()]
    expect(Math.max(...ys) - Math.min(...ys)).toBeGreaterThan(400)
    expect(lay.height).toBe(600)
  })
  it('the zoom menu: fit is the whole run, custom the window as is, a scale keeps the left edge', () => {
    const full = { from: LEFT, to: LEFT + 1000 }
    const current = { from: LEFT + 200, to: LEFT + 400 }
    expect(menuWindow('fit', full, current, 800)).toEqual(full)
    expect(menuWindow('custom', full, current, 800)).toBe(current)
    const at2 = menuWindow('2', full, current, 800)
    expect(at2.from).toBeCloseTo(current.from)
    expect(viewFor(at2, 800).sx).toBeCloseTo(2)
  })
})

describe('what a large run draws', () => {
  it('draws a small run whole, a large one around the view; a scroll past that draws again', () => {
    expect(drawRange(DRAW_ALL_BELOW - 1, 5000, 1000)).toBeUndefined()
    const range = drawRange(DRAW_ALL_BELOW, 5000, 1000)!
    expect(range).toEqual({ from: 4500, to: 6500 })
    expect(outsideDrawn(undefined, 1e9, 1000)).toBe(false)
    expect(outsideDrawn(range, 5000, 1000)).toBe(false)
    expect(outsideDrawn(range, 5499, 1000)).toBe(false)
    expect(outsideDrawn(range, 5501, 1000)).toBe(true)
    expect(outsideDrawn(range, 4499, 1000)).toBe(true)
  })
})

describe('the time axis', () => {
  it('picks round steps and writes times with units', () => {
    expect(niceStep(0.7)).toBe(1)
    expect(niceStep(3)).toBe(5)
    expect(niceStep(120)).toBe(200)
    expect(niceStep(1000)).toBe(1000)
    expect(formatDuration(0)).toBe('0')
    expect(formatDuration(0.25)).toBe('250 µs')
    expect(formatDuration(37.5)).toBe('37.5 ms')
    expect(formatDuration(12_400)).toBe('12.4 s')
    expect(formatDuration(125_000)).toBe('2 min 5 s')
  })

  it('maps time to x one way in both spacings, and puts round ticks in order', () => {
    const d = pingPong(3, 80)
    for (const mode of ['compact', 'time'] as const) {
      const base = layout(d, mode)
      const scale = timeScale(d.timeline, base.x)
      let last = Number.NEGATIVE_INFINITY
      for (let t = 0; t <= 80 * 250; t += 97) {
        const x = scale.xAt(t)
        expect(x, `${mode} t=${t}`).toBeGreaterThanOrEqual(last)
        last = x
        expect(scale.tAt(x)).toBeGreaterThanOrEqual(0)
      }
      const ts = ticks(scale, LEFT, base.endX, 100)
      expect(ts.length).toBeGreaterThan(2)
      for (let i = 1; i < ts.length; i++) {
        expect(ts[i]!.t).toBeGreaterThan(ts[i - 1]!.t)
        expect(ts[i]!.x).toBeGreaterThan(ts[i - 1]!.x)
      }
      expect(ts.every((t) => /^(0|[\d.]+ (µs|ms|s)|\d+ min [\d.]+ s)$/.test(t.label))).toBe(true)
    }
  })
})
