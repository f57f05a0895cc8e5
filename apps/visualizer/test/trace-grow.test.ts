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

describe('a grower restored from a saved state', () => {
  /**
   * Saves states while growing the whole trace, then restores each and grows it to later
   * prefixes (ones the saving grower read past, as a branch cut back does): each equals the
   * diagram grown from scratch to that prefix, and the saving grower is left as it was.
   */
  function restoreAndCompare(doc: { nodes: unknown[]; events: unknown[]; seed?: unknown }) {
    const n = doc.events.length
    const grower = new DiagramGrower(doc.nodes, doc.seed)
    const saves = [1, 2, 3, 5, 8].map((k) => Math.floor((n * k) / 10))
    const states = saves.map((cut) => {
      expect(grower.grow(doc.events.slice(0, cut))).toBe(true)
      return grower.save()
    })
    expect(grower.grow(doc.events)).toBe(true)
    const whole = grower.diagram()
    for (const [i, state] of states.entries()) {
      for (const cut of [saves[i]!, saves[i]! + 1, Math.floor((saves[i]! + n) / 2), n]) {
        const back = DiagramGrower.restore(doc.nodes, doc.seed, state)!
        expect(back.length).toBe(saves[i])
        const prefix = doc.events.slice(0, cut)
        expect(back.grow(prefix)).toBe(true)
        const scratch = new DiagramGrower(doc.nodes, doc.seed)
        expect(scratch.grow(prefix)).toBe(true)
        expect(back.diagram()).toEqual(scratch.diagram())
        expect(back.diagram()).toEqual(traceToDiagram({ ...doc, events: prefix }))
        expect(compactLayout(back.diagram()).layout).toEqual(layout(scratch.diagram(), 'compact'))
      }
    }
    // Restoring and growing changed nothing of the grower that saved.
    expect(grower.diagram()).toEqual(whole)
    expect(whole).toEqual(traceToDiagram(doc))
  }

  it('grows to what a grower from scratch grows, on scenarios with crashes and duplicates', () => {
    for (const [name, n0, crash] of [
      ['flood', 12, [2]],
      ['election-bully', 0, [7]],
      ['mutex-ricart-agrawala', 6, []],
    ] as const)
      restoreAndCompare(runOf(name, n0, [...crash]))
  })

  it('opens again the bands closed after the save (crash, pause, partition, loss)', () => {
    const doc = JSON.parse(
      readFileSync(new URL('./fixtures/synthetic-faults.json', import.meta.url), 'utf8'),
    )
    restoreAndCompare(doc)
    // Saved at every entry: every band opened and not yet closed there.
    const grower = new DiagramGrower(doc.nodes, doc.seed)
    const states = doc.events.map((_: unknown, i: number) => {
      grower.grow(doc.events.slice(0, i + 1))
      return grower.save()
    })
    for (const [i, state] of states.entries()) {
      const back = DiagramGrower.restore(doc.nodes, doc.seed, state)!
      expect(back.grow(doc.events)).toBe(true)
      expect(back.diagram(), `saved after entry ${i}`).toEqual(traceToDiagram(doc))
      const at = DiagramGrower.restore(doc.nodes, doc.seed, state)!
      expect(at.diagram()).toEqual(traceToDiagram({ ...doc, events: doc.events.slice(0, i + 1) }))
    }
  })
})
