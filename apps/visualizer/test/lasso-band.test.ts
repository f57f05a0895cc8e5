import { describe, expect, it } from 'vitest'
import { lassoLoopBand } from '../src/lasso-band.js'
import { traceToDiagram } from '../src/trace.js'

const doc = (events: unknown[]): unknown => ({
  format: 'sd-trace',
  version: 1,
  seed: 1,
  nodes: [1, 2],
  events,
})
const send = (t: number, id: number) => [
  { t, type: 'send', from: 1, to: 2, msg: 'ball', id },
  { t: t + 1, type: 'deliver', from: 1, to: 2, msg: 'ball', id },
]
const mark = (t: number, label: string) => ({ t, type: 'mark', label })

describe('the loop band of a liveness lasso', () => {
  it('spans from "loop begins" to the last turn\'s end, counting the turns', () => {
    const d = traceToDiagram(
      doc([
        ...send(0, 1),
        mark(1, 'lasso: loop begins'),
        ...send(2, 2),
        mark(3, 'lasso: loop turn 1 ends'),
        ...send(4, 3),
        mark(5, 'lasso: loop turn 2 ends'),
      ]),
    )
    const band = lassoLoopBand(d.marks)!
    const seqOf = (label: string) => d.marks.find((m) => m.label === label)!.seq
    expect(band).toEqual({
      fromSeq: seqOf('lasso: loop begins'),
      toSeq: seqOf('lasso: loop turn 2 ends'),
      turns: 2,
    })
    expect(band.toSeq).toBeGreaterThan(band.fromSeq)
  })

  it('none without a loop: no marks, other marks, a deadlock, a loop with no turn ended', () => {
    expect(lassoLoopBand([])).toBeUndefined()
    const at = (seq: number, label: string) => ({ id: seq, t: seq, seq, label })
    expect(lassoLoopBand([at(1, 'workload starts')])).toBeUndefined()
    expect(lassoLoopBand([at(4, 'lasso: nothing is left to happen')])).toBeUndefined()
    expect(lassoLoopBand([at(4, 'lasso: loop begins')])).toBeUndefined()
    // A turn's end before the loop begins is not one of its turns.
    expect(
      lassoLoopBand([
        at(1, 'lasso: loop turn 1 ends'),
        at(2, 'lasso: loop begins'),
        at(5, 'lasso: loop turn 1 ends'),
      ]),
    ).toEqual({ fromSeq: 2, toSeq: 5, turns: 1 })
  })
})
