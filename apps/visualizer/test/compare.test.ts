import { scenarios } from '@sd/playground/src/scenarios/index.js'
import { describe, expect, it } from 'vitest'
import { diffRuns, eventKey, unmatched } from '../src/compare.js'
import { traceToDiagram } from '../src/trace.js'

const base = [
  { t: 0, type: 'start', node: 'n1' },
  { t: 1, type: 'send', id: 1, from: 'n1', to: 'n2', msg: { type: 'ping' } },
  { t: 2, type: 'deliver', id: 1, from: 'n1', to: 'n2', sentAt: 1 },
  { t: 3, type: 'emit', node: 'n2', event: { type: 'acquired', token: 1 } },
  { t: 4, type: 'send', id: 2, from: 'n2', to: 'n1', msg: { type: 'pong' } },
  { t: 5, type: 'deliver', id: 2, from: 'n2', to: 'n1', sentAt: 4 },
]
const doc = (events: unknown[]) => traceToDiagram({ nodes: ['n1', 'n2'], events })

describe('comparing two runs', () => {
  it('finds no difference between a run and itself', () => {
    const diff = diffRuns(doc(base), doc(base))
    expect(diff.total).toBe(0)
    expect(diff.processes).toEqual(['n1', 'n2'])
    expect([...diff.perProcess.values()]).toEqual([
      { a: 0, b: 0 },
      { a: 0, b: 0 },
    ])
  })

  it('flags exactly the one extra event, whatever the message ids and times', () => {
    const extra = [
      ...base.slice(0, 3).map((e) => ({ ...e, t: e.t * 2 })),
      { t: 6.5, type: 'emit', node: 'n2', event: { type: 'requested' } },
      ...base
        .slice(3)
        .map((e) => ({ ...e, t: e.t * 2, ...(e.id === undefined ? {} : { id: e.id + 10 }) })),
    ]
    const b = doc(extra)
    const diff = diffRuns(doc(base), b)
    expect(diff.total).toBe(1)
    expect(diff.onlyA.size).toBe(0)
    expect([...diff.onlyB].map((e) => e.id)).toEqual([3])
    expect(diff.perProcess.get('n2')).toEqual({ a: 0, b: 1 })
    expect(diff.perProcess.get('n1')).toEqual({ a: 0, b: 0 })
  })

  it('tells events apart by kind, message type and peer, and pairs processes by name', () => {
    const keys = doc(base).events.map(eventKey)
    expect(keys).toEqual([
      'start',
      'send ping to n2',
      'deliver ping from n1',
      'emit acquired',
      'send pong to n1',
      'deliver pong from n2',
    ])
    const other = traceToDiagram({
      nodes: ['n2', 'n3'],
      events: [{ t: 0, type: 'emit', node: 'n3', event: { type: 'x' } }],
    })
    const diff = diffRuns(doc(base), other)
    expect(diff.processes).toEqual(['n1', 'n2', 'n3'])
    expect(diff.perProcess.get('n1')).toEqual({ a: 3, b: 0 })
    expect(diff.perProcess.get('n2')).toEqual({ a: 3, b: 0 })
    expect(diff.perProcess.get('n3')).toEqual({ a: 0, b: 1 })
  })

  it('aligns by a longest common subsequence', () => {
    expect(unmatched(['a', 'b', 'c', 'd'], ['a', 'c', 'd', 'e'])).toEqual({ a: [1], b: [3] })
    expect(unmatched(['x', 'a', 'b'], ['a', 'b', 'y'])).toEqual({ a: [0], b: [2] })
    expect(unmatched([], ['a'])).toEqual({ a: [], b: [0] })
    expect(unmatched(['a', 'b', 'b'], ['a', 'b', 'b', 'b'])).toEqual({ a: [], b: [3] })
  })

  it('same scenario, another seed: differences on both sides, none against itself', () => {
    const scenario = scenarios.find((s) => s.name === 'mutex-ricart-agrawala')!
    const one = traceToDiagram(
      scenario.run({ n: scenario.defaultN, seed: 1, crash: [] }).net.traceDocument(),
    )
    const two = traceToDiagram(
      scenario.run({ n: scenario.defaultN, seed: 2, crash: [] }).net.traceDocument(),
    )
    expect(diffRuns(one, one).total).toBe(0)
    const diff = diffRuns(one, two)
    expect(diff.total).toBeGreaterThan(0)
    let sum = 0
    for (const { a, b } of diff.perProcess.values()) sum += a + b
    expect(sum).toBe(diff.total)
  })
})
