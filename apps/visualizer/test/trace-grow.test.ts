import { readFileSync } from 'node:fs'
import { scenarios } from '@sd/playground/src/scenarios/index.js'
import { describe, expect, it } from 'vitest'
import { compactLayout, growLayout, layout } from '../src/layout.js'
import { traceToDiagram } from '../src/trace.js'
import { DiagramGrower } from '../src/trace-grow.js'

/** A playground scenario's trace document. */
function runOf(name: string, n: number, crash: number[] = []) {
  const s = scenarios.find((x) => x.name === name)!
  return s.run({ n: n || s.defaultN, seed: 1, crash }).net.traceDocument()
}

/**
 * Grows a diagram and its compact layout through `cuts` (prefix lengths, rising) and compares
 * each with the diagram and layout of the prefix built afresh.
 */
function growAndCompare(
  doc: { nodes: unknown[]; events: unknown[]; seed?: unknown },
  cuts: number[],
) {
  const grower = new DiagramGrower(doc.nodes, doc.seed)
  let fold: ReturnType<typeof compactLayout>['fold'] | undefined
  for (const cut of cuts) {
    const prefix = doc.events.slice(0, cut)
    expect(grower.grow(prefix)).toBe(true)
    expect(grower.length).toBe(cut)
    const grown = grower.diagram()
    const fresh = traceToDiagram({ ...doc, events: prefix })
    expect(grown).toEqual(fresh)
    let lay: ReturnType<typeof layout>
    if (fold) lay = growLayout(fold, grown)
    else {
      const first = compactLayout(grown)
      fold = first.fold
      lay = first.layout
    }
    expect(lay).toEqual(layout(fresh, 'compact'))
  }
}

describe('a diagram grown entry by entry', () => {
  it("is traceToDiagram's of the same prefix, clocks, arrows in flight and layout included", () => {
    for (const [name, n0, crash] of [
      ['flood', 12, [2]],
      ['election-bully', 0, [7]],
      ['mutex-ricart-agrawala', 6, []],
      ['causal-order', 0, []],
    ] as const) {
      const doc = runOf(name, n0, [...crash])
      const n = doc.events.length
      expect(n).toBeGreaterThan(50)
      // One entry at a time at first (messages just sent, in flight, then delivered), then strides.
      const cuts = [
        ...Array.from({ length: 40 }, (_, i) => i + 1),
        ...[0.2, 0.45, 0.5, 0.8, 1].map((f) => Math.max(41, Math.floor(n * f))),
      ]
      growAndCompare(doc, cuts)
    }
  })

  it('grows through faults: crash, restart, pause, partition, heal, loss, marks, drops', () => {
    const doc = JSON.parse(
      readFileSync(new URL('./fixtures/synthetic-faults.json', import.meta.url), 'utf8'),
    )
    const n = doc.events.length
    growAndCompare(
      doc,
      Array.from({ length: n }, (_, i) => i + 1),
    )
  })

  it('refuses an entry earlier than the last one read, or on a new process, reading none', () => {
    const grower = new DiagramGrower([1, 2], 1)
    const events: unknown[] = [
      { t: 5, type: 'start', node: 1 },
      { t: 6, type: 'start', node: 2 },
    ]
    expect(grower.grow(events)).toBe(true)
    expect(grower.grow([...events, { t: 4, type: 'start', node: 1 }])).toBe(false)
    expect(grower.grow([...events, { t: 7, type: 'start', node: 3 }])).toBe(false)
    expect(grower.length).toBe(2)
    expect(grower.diagram().events).toHaveLength(2)
  })
})
