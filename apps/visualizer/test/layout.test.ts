import { describe, expect, it } from 'vitest'
import { gapFor, LEFT, layout, STEP } from '../src/layout.js'
import type { Diagram } from '../src/model.js'
import { traceToDiagram } from '../src/trace.js'

function diagram(): Diagram {
  return traceToDiagram({
    nodes: [1, 2, 3],
    events: [
      { t: 0, type: 'start', node: 1 },
      { t: 0, type: 'start', node: 2 },
      { t: 0, type: 'send', id: 1, from: 1, to: 2, msg: { type: 'a' } },
      // Delivered at the very instant it was sent: still drawn after the send.
      { t: 0, type: 'deliver', id: 1, from: 1, to: 2, sentAt: 0 },
      { t: 0, type: 'emit', node: 1, event: { type: 'x' } },
      { t: 10, type: 'partition', groups: [[1], [2, 3]] },
      { t: 10, type: 'send', id: 2, from: 3, to: 1, msg: { type: 'b' } },
      { t: 1000, type: 'heal' },
      { t: 1000, type: 'deliver', id: 2, from: 3, to: 1, sentAt: 10 },
    ],
  })
}

describe('layout', () => {
  it('keeps each line in trace order, STEP apart, and every delivery after its send', () => {
    for (const mode of ['compact', 'time'] as const) {
      const d = diagram()
      const lay = layout(d, mode)
      const byProcess = new Map<string, number[]>()
      for (const e of d.events)
        byProcess.set(e.process, [...(byProcess.get(e.process) ?? []), lay.x[e.seq]!])
      for (const xs of byProcess.values())
        for (let i = 1; i < xs.length; i++) expect(xs[i]! - xs[i - 1]!).toBeGreaterThanOrEqual(STEP)
      for (const m of d.messages)
        expect(lay.x[m.deliver!.seq]!).toBeGreaterThan(lay.x[m.send!.seq]!)
      expect(Math.min(...lay.x)).toBe(LEFT)
      expect(lay.endX).toBeGreaterThan(Math.max(...lay.x))
      expect(lay.width).toBeGreaterThan(lay.endX)
    }
  })

  it('puts what follows a partition or heal after it on every line', () => {
    const d = diagram()
    const lay = layout(d)
    const partition = lay.x[d.partitions[0]!.fromSeq]!
    const heal = lay.x[d.partitions[0]!.toSeq!]!
    const after = d.events.find((e) => e.t === 10)!
    expect(lay.x[after.seq]!).toBeGreaterThan(partition)
    expect(lay.x[d.events.find((e) => e.t === 1000)!.seq]!).toBeGreaterThan(heal)
  })

  it('compact: gaps grow with the log of the time between instants, and are capped', () => {
    expect(gapFor(0)).toBe(0)
    expect(gapFor(1)).toBeCloseTo(8)
    expect(gapFor(7)).toBeCloseTo(24)
    expect(gapFor(1e9)).toBe(60)
    const lay = layout(diagram())
    expect(lay.x[lay.x.length - 1]! - LEFT).toBeLessThan(400)
  })

  it('gives processes rows top to bottom in the trace order', () => {
    const lay = layout(diagram())
    expect([...lay.y.keys()]).toEqual(['1', '2', '3'])
    const ys = [...lay.y.values()]
    expect(ys[1]! - ys[0]!).toBe(ys[2]! - ys[1]!)
    expect(lay.height).toBeGreaterThan(ys[2]!)
  })
})
