import { createRandom } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../../test-support/seeds.js'
import { sccOf, WaitForGraph } from '../../src/graph/index.js'
import { adjacency, checkCycle, idOf, nodeOf, randomEdges, truthOf } from './oracle.js'

/** A random graph of 1 to 14 processes with a random density, as a WaitForGraph and as the oracle sees it. */
function randomCase(seed: number) {
  const next = createRandom(`wfg-${seed}`).next
  const n = 1 + Math.floor(next() * 14)
  const p = next() * (next() < 0.5 ? 0.15 : 0.5)
  const edges = randomEdges(next, n, p)
  const graph = new WaitForGraph(edges.map(([a, b]) => [idOf(a), idOf(b)] as const))
  for (let v = 0; v < n; v++) graph.addProcess(idOf(v)) // the isolated ones too
  const adj = adjacency(n, edges)
  return { n, edges, graph, adj, truth: truthOf(adj) }
}

const SEEDS = seedList(400)

describe('WaitForGraph against brute force on random graphs', () => {
  it('onCycle and isDeadlocked match reachability (x on a cycle iff x reaches itself)', () => {
    forSeeds(SEEDS, (seed) => {
      const { n, graph, truth } = randomCase(seed)
      for (let v = 0; v < n; v++) {
        expect(graph.onCycle(idOf(v)), `onCycle(${v})`).toBe(truth.onCycle[v])
        expect(graph.isDeadlocked(idOf(v)), `isDeadlocked(${v})`).toBe(truth.deadlocked[v])
      }
    })
  })

  it('deadlockedProcesses is the set of processes that reach a cycle', () => {
    forSeeds(SEEDS, (seed) => {
      const { n, graph, truth } = randomCase(seed)
      const expected = Array.from({ length: n }, (_, v) => v).filter((v) => truth.deadlocked[v])
      expect(
        graph
          .deadlockedProcesses()
          .map(nodeOf)
          .sort((a, b) => a - b),
      ).toEqual(expected)
    })
  })

  it('findCycle gives a real cycle exactly when there is one, through the start when it can', () => {
    forSeeds(SEEDS, (seed) => {
      const { n, graph, adj, truth } = randomCase(seed)
      const any = graph.findCycle()
      if (truth.onCycle.some(Boolean)) checkCycle(adj, any!.map(nodeOf))
      else expect(any).toBeUndefined()
      for (let v = 0; v < n; v++) {
        const cycle = graph.findCycle(idOf(v))?.map(nodeOf)
        if (!truth.deadlocked[v]) {
          expect(cycle, `findCycle(${v})`).toBeUndefined()
          continue
        }
        checkCycle(adj, cycle!)
        if (truth.onCycle[v]) expect(cycle![0]).toBe(v)
        // Otherwise a cycle v reaches, hence made of processes on cycles.
        else for (const c of cycle!) expect(truth.onCycle[c]).toBe(true)
      }
    })
  })

  it('strongly connected components are the classes of mutual reachability, sinks first', () => {
    forSeeds(SEEDS, (seed) => {
      const { n, edges, graph, truth } = randomCase(seed)
      const components = graph.stronglyConnectedComponents().map((c) => c.map(nodeOf))
      const componentOf = new Array<number>(n).fill(-1)
      components.forEach((c, i) => {
        for (const v of c) {
          expect(componentOf[v], `${v} in two components`).toBe(-1)
          componentOf[v] = i
        }
      })
      for (let v = 0; v < n; v++) {
        expect(componentOf[v]).not.toBe(-1)
        for (let w = 0; w < n; w++) {
          const together = componentOf[v] === componentOf[w]
          expect(together, `${v} and ${w}`).toBe(truth.sccLabel[v] === truth.sccLabel[w])
        }
      }
      // Every wait between two components goes to an earlier one.
      for (const [a, b] of edges) expect(componentOf[b]!).toBeLessThanOrEqual(componentOf[a]!)
      // cyclicOnly keeps the components of two or more, and sccOf is the same answer.
      const cyclic = graph.stronglyConnectedComponents({ cyclicOnly: true })
      expect(cyclic).toEqual(graph.stronglyConnectedComponents().filter((c) => c.length > 1))
      const waits = graph.waits()
      const standalone = sccOf(waits).map((c) => c.map(nodeOf).sort((a, b) => a - b))
      const withEdges = components.filter((c) => c.some((v) => edges.some((e) => e.includes(v))))
      expect(standalone.sort().join('|')).toEqual(
        withEdges
          .map((c) => [...c].sort((a, b) => a - b))
          .sort()
          .join('|'),
      )
    })
  })

  it('processes, waits and counts match the edge list', () => {
    forSeeds(SEEDS, (seed) => {
      const { n, edges, graph, adj } = randomCase(seed)
      expect(graph.size).toEqual({ processes: n, waits: edges.length })
      const listed = graph.waits().map(([a, b]) => `${nodeOf(a)}>${nodeOf(b)}`)
      expect(listed.sort()).toEqual(edges.map(([a, b]) => `${a}>${b}`).sort())
      for (let v = 0; v < n; v++) {
        expect(graph.waitsOf(idOf(v)).map(nodeOf).sort()).toEqual([...adj[v]!].sort())
        const waiters = adj.flatMap((out, u) => (out.has(v) ? [u] : []))
        expect(graph.waitersOf(idOf(v)).map(nodeOf).sort()).toEqual(waiters.sort())
      }
    })
  })
})
