import { createRandom } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../../test-support/seeds.js'
import { WaitForGraph } from '../../src/graph/index.js'
import { checkCycle, distances, idOf, nodeOf, truthOf } from './oracle.js'

// A lock manager's life: waits come and go, transactions end; after every change the incremental
// answers must equal a recomputation from scratch by brute force.
describe('incremental detection against recomputation', () => {
  it('addWaitDetect reports a shortest cycle exactly when the new wait closes one', () => {
    forSeeds(seedList(150), (seed) => {
      const next = createRandom(`incremental-${seed}`).next
      const n = 2 + Math.floor(next() * 10)
      const graph = new WaitForGraph()
      const adj = Array.from({ length: n }, () => new Set<number>())
      const pick = () => Math.floor(next() * n)
      for (let step = 0; step < 60; step++) {
        const roll = next()
        const a = pick()
        let b = pick()
        if (b === a) b = (a + 1) % n
        if (roll < 0.65) {
          const dist = distances(adj)
          const closes = dist[b]![a]! < Infinity
          const asked = graph.cycleIfWaits(idOf(a), idOf(b))
          const cycle = graph.addWaitDetect(idOf(a), idOf(b))?.map(nodeOf)
          adj[a]!.add(b)
          expect(asked?.map(nodeOf), `step ${step}: asking = adding`).toEqual(cycle)
          if (!closes) {
            expect(cycle, `step ${step}: ${a} -> ${b} closes nothing`).toBeUndefined()
          } else {
            expect(cycle, `step ${step}: ${a} -> ${b} closes a cycle`).toBeDefined()
            checkCycle(adj, cycle!)
            expect(cycle!.slice(0, 2)).toEqual([a, b])
            expect(cycle!.length).toBe(1 + dist[b]![a]!)
          }
        } else if (roll < 0.9) {
          expect(graph.removeWait(idOf(a), idOf(b))).toBe(adj[a]!.delete(b))
        } else {
          graph.removeProcess(idOf(a))
          adj[a]!.clear()
          for (const out of adj) out.delete(a)
        }
        const truth = truthOf(adj)
        const present = (v: number) => graph.hasProcess(idOf(v))
        for (let v = 0; v < n; v++) {
          if (!present(v)) {
            expect(adj[v]!.size).toBe(0)
            continue
          }
          expect(graph.onCycle(idOf(v)), `step ${step}: onCycle(${v})`).toBe(truth.onCycle[v])
          expect(graph.isDeadlocked(idOf(v)), `step ${step}: isDeadlocked(${v})`).toBe(
            truth.deadlocked[v],
          )
        }
        const dead = graph.deadlockedProcesses().map(nodeOf)
        expect(new Set(dead)).toEqual(new Set(truth.deadlocked.flatMap((d, v) => (d ? [v] : []))))
        const waits = adj.reduce((sum, out) => sum + out.size, 0)
        expect(graph.size.waits).toBe(waits)
      }
    })
  })
})
