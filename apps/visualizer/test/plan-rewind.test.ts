import { scenarios } from '@sd/playground/src/scenarios/index.js'
import { describe, expect, it } from 'vitest'
import { compactLayout } from '../src/layout.js'
import type { Diagram } from '../src/model.js'
import {
  type MessagePlan,
  newPainter,
  type Painter,
  planEvent,
  planMessage,
  rewindArrows,
  rewindEvents,
} from '../src/paint.js'
import { traceToDiagram } from '../src/trace.js'

/**
 * The painter's plans brought back to a prefix of what it planned (`rewindArrows`,
 * `rewindEvents`) and planned on from there are the plans made afresh: the lab keeps a drawing's
 * labels across a branch this way instead of planning every label again.
 */

function diagramOf(name: string, n: number, crash: number[] = []): Diagram {
  const s = scenarios.find((x) => x.name === name)!
  return traceToDiagram(s.run({ n: n || s.defaultN, seed: 1, crash }).net.traceDocument())
}

const painterOf = (d: Diagram): Painter =>
  newPainter(d, compactLayout(d).layout, new Map(), undefined, {
    labelsOverAll: true,
    inFlightBare: true,
  })

const RUNS = [
  ['election-bully', 0, [7]],
  ['mutex-ricart-agrawala', 6, []],
  ['flood', 12, [2]],
  ['causal-order', 0, []],
] as const

describe('plans brought back to a prefix', () => {
  it('rewindEvents: the first k mark plans kept and the rest planned again are the plans made afresh', () => {
    const shown = { true: 0, false: 0 }
    for (const [name, n, crash] of RUNS) {
      const d = diagramOf(name, n, [...crash])
      const fresh = painterOf(d)
      const all = d.events.map((e) => planEvent(fresh, e))
      for (const x of all) if (x !== undefined) shown[`${x}`]++
      for (const k of [0, 1, 7, Math.floor(d.events.length / 3), d.events.length - 1]) {
        const p = painterOf(d)
        for (const e of d.events) p.plans.events.push(planEvent(p, e))
        rewindEvents(p, d.events, k)
        // The room each line's labels take is that of the first k marks planned alone.
        const prefix = painterOf(d)
        for (const e of d.events.slice(0, k)) planEvent(prefix, e)
        expect(p.labelEnd).toEqual(prefix.labelEnd)
        for (const e of d.events.slice(k)) p.plans.events.push(planEvent(p, e))
        expect(p.plans.events).toEqual(all)
      }
    }
    // Labels shown and labels on hover (no room left on their line) among them.
    expect(shown.true).toBeGreaterThan(0)
    expect(shown.false).toBeGreaterThan(0)
  })

  it('rewindArrows: the labels of the plans kept, then the rest planned again, are the plans made afresh', () => {
    for (const [name, n, crash] of RUNS) {
      const d = diagramOf(name, n, [...crash])
      const fresh = painterOf(d)
      const all = d.messages.map((m) => planMessage(fresh, m))
      // Labels shown and labels on hover (they would overlap one shown) among them.
      expect(all.filter((x) => x.shown).length).toBeGreaterThan(0)
      expect(all.filter((x) => !x.shown).length).toBeGreaterThan(0)
      for (const k of [0, 3, Math.floor(d.messages.length / 2), d.messages.length - 1]) {
        const p = painterOf(d)
        const plans = d.messages.map((m) => planMessage(p, m))
        rewindArrows(p, plans.slice(0, k))
        const again = [...plans.slice(0, k), ...d.messages.slice(k).map((m) => planMessage(p, m))]
        expect(again).toEqual(all)
      }
    }
  })

  it('drawn bare, an arrow in flight takes no room: the others are planned as if it were not there', () => {
    // The lab plans again only the arrows settled (delivered, dropped) after a change.
    const doc = scenarios
      .find((x) => x.name === 'flood')!
      .run({ n: 12, seed: 1, crash: [2] })
      .net.traceDocument()
    // Half the run: many messages still in flight.
    const cut = traceToDiagram({ ...doc, events: doc.events.slice(0, doc.events.length / 2) })
    expect(cut.messages.filter((m) => m.outcome === 'in-flight').length).toBeGreaterThan(5)
    for (const diagram of [traceToDiagram(doc), cut]) {
      const p = painterOf(diagram)
      const plans = diagram.messages.map((m) => planMessage(p, m))
      const settledOnly = painterOf(diagram)
      const settled: MessagePlan[] = []
      diagram.messages.forEach((m, i) => {
        if (m.outcome === 'in-flight') {
          expect(plans[i]!.shown).toBe(false)
          expect(plans[i]!.claim).toBeUndefined()
        } else {
          settled.push(plans[i]!)
          expect(planMessage(settledOnly, m)).toEqual(plans[i])
        }
      })
      expect(settled.length).toBeGreaterThan(0)
    }
  })
})
