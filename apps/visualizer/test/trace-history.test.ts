/** The trace's `historyCheck` read into the diagram (trace-history.ts), and where its times land. */
import { describe, expect, it } from 'vitest'
import { timeToX } from '../src/history-view.js'
import { layout } from '../src/layout.js'
import { InputError } from '../src/model.js'
import { traceToDiagram } from '../src/trace.js'

const events = [
  { t: 0, type: 'start', node: 'n1' },
  { t: 0, type: 'start', node: 'n2' },
  { t: 10, type: 'emit', node: 'n1', event: { type: 'acquired', token: 1 } },
  { t: 20, type: 'emit', node: 'n2', event: { type: 'acquired', token: 2 } },
]
const twoHolders = {
  format: 'sd-history-check',
  version: 1,
  models: [
    { model: 'register', verdict: 'linearizable', operations: 0 },
    {
      model: 'lock',
      verdict: 'not-linearizable',
      message: 'stuck at n2#2 acquire -> token 2',
      minimal: true,
      counterexample: [
        { node: 'n1', client: 'n1#1', invokedAt: 5, completedAt: 10, label: 'n1#1 acquire' },
        { node: 'n2', client: 'n2#2', invokedAt: 15, label: 'n2#2 acquire' },
      ],
    },
  ],
}
const trace = (historyCheck: unknown) => ({
  format: 'sd-trace',
  nodes: ['n1', 'n2'],
  events,
  historyCheck,
})

describe('historyCheck', () => {
  it('gives each model its verdict and its failing operations, a pending one without an end', () => {
    const d = traceToDiagram(trace(twoHolders))
    expect(d.histories).toEqual([
      { model: 'register', verdict: 'linearizable', operations: [] },
      {
        model: 'lock',
        verdict: 'not-linearizable',
        message: 'stuck at n2#2 acquire -> token 2',
        minimal: true,
        operations: [
          { process: 'n1', client: 'n1#1', from: 5, to: 10, label: 'n1#1 acquire' },
          { process: 'n2', client: 'n2#2', from: 15, label: 'n2#2 acquire' },
        ],
      },
    ])
    expect(d.title).toMatch(/ · lock history NOT linearizable \(2 operations\)$/)
  })

  it('is absent from a trace without one; another format or a broken operation is an input error', () => {
    expect(traceToDiagram({ events }).histories).toBeUndefined()
    expect(() => traceToDiagram(trace({ ...twoHolders, version: 2 }))).toThrow(InputError)
    const broken = structuredClone(twoHolders)
    delete (broken.models[1]!.counterexample![0] as { invokedAt?: number }).invokedAt
    expect(() => traceToDiagram(trace(broken))).toThrow(/operation 0: no `node` or no finite/)
  })

  it('places instants between the timeline items proportionally, clamped at both ends', () => {
    const d = traceToDiagram(trace(twoHolders))
    const lay = layout(d)
    const xAt = timeToX(d, lay)
    const at10 = lay.x[d.timeline.find((i) => i.t === 10)!.seq]!
    const at20 = lay.x[d.timeline.find((i) => i.t === 20)!.seq]!
    expect(xAt(15)).toBeCloseTo((at10 + at20) / 2)
    expect(xAt(-5)).toBe(xAt(0))
    expect(xAt(99)).toBe(at20)
    expect(xAt(12)).toBeLessThan(xAt(13))
  })
})
