import { createRandom } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../../test-support/seeds.js'
import { elementaryCyclesOf, WaitForGraph } from '../../src/graph/index.js'
import { adjacency, allCycles, canonical, checkCycle, idOf, nodeOf, randomEdges } from './oracle.js'

describe("Johnson's elementary cycles", () => {
  it('finds all cycles of the complete graph on 4 processes (20 of them)', () => {
    const ids = ['a', 'b', 'c', 'd']
    const g = new WaitForGraph<string>()
    for (const x of ids) for (const y of ids) if (x !== y) g.addWait(x, y)
    const cycles = g.elementaryCycles({ limit: Infinity })
    // 6 of length 2, 8 of length 3, 6 of length 4.
    expect(cycles.map((c) => c.length).sort()).toEqual([
      ...new Array(6).fill(2),
      ...new Array(8).fill(3),
      ...new Array(6).fill(4),
    ])
    expect(new Set(cycles.map((c) => c.join())).size).toBe(20)
    expect(elementaryCyclesOf(g.waits(), { limit: 5 })).toHaveLength(5)
  })

  it('lists each cycle from its earliest-added process', () => {
    const g = new WaitForGraph([
      ['z', 'y'],
      ['y', 'x'],
      ['x', 'z'],
    ])
    expect(g.elementaryCycles({ limit: 1 })).toEqual([['z', 'y', 'x']])
  })

  it('matches brute-force enumeration on random graphs of at most 8 processes', () => {
    forSeeds(seedList(400), (seed) => {
      const next = createRandom(`johnson-${seed}`).next
      const n = 1 + Math.floor(next() * 8)
      const edges = randomEdges(next, n, 0.1 + next() * 0.6)
      const adj = adjacency(n, edges)
      const expected = allCycles(adj)
      const graph = new WaitForGraph(edges.map(([a, b]) => [idOf(a), idOf(b)] as const))
      const cycles = graph.elementaryCycles({ limit: Infinity }).map((c) => c.map(nodeOf))
      for (const c of cycles) checkCycle(adj, c)
      const found = cycles.map((c) => canonical(c, (v) => v))
      expect(found.length, 'no cycle twice').toBe(new Set(found).size)
      expect(new Set(found)).toEqual(expected)
      // A limit returns that many distinct cycles (or all when there are fewer).
      const limit = 1 + Math.floor(next() * 6)
      const some = graph.elementaryCycles({ limit }).map((c) => canonical(c.map(nodeOf), (v) => v))
      expect(some.length).toBe(Math.min(limit, expected.size))
      for (const c of some) expect(expected.has(c)).toBe(true)
    })
  })
})
