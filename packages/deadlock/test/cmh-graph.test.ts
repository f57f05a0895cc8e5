import { createRandom, type NodeId, SimNetwork } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { cmhOnGraph } from '../src/detect/cmh-graph.js'

/** Does `from` reach `to` by one or more edges (a brute-force oracle). */
function reaches(graph: Map<NodeId, NodeId[]>, from: NodeId, to: NodeId): boolean {
  const seen = new Set<NodeId>()
  const stack = [...(graph.get(from) ?? [])]
  while (stack.length > 0) {
    const n = stack.pop()!
    if (n === to) return true
    if (seen.has(n)) continue
    seen.add(n)
    stack.push(...(graph.get(n) ?? []))
  }
  return false
}

/** Edges reachable from `from` (its own included). */
function reachableEdges(graph: Map<NodeId, NodeId[]>, from: NodeId): number {
  const seen = new Set<NodeId>([from])
  const stack = [from]
  let edges = 0
  while (stack.length > 0) {
    const n = stack.pop()!
    for (const m of graph.get(n) ?? []) {
      edges++
      if (!seen.has(m)) {
        seen.add(m)
        stack.push(m)
      }
    }
  }
  return edges
}

function randomGraph(seed: number): Map<NodeId, NodeId[]> {
  const random = createRandom(`cmh-graph/${seed}`).next
  const n = 2 + Math.floor(random() * 12)
  const density = random() * 0.3
  const graph = new Map<NodeId, NodeId[]>()
  for (let i = 1; i <= n; i++) {
    const out: NodeId[] = []
    for (let j = 1; j <= n; j++) if (j !== i && random() < density) out.push(j)
    graph.set(i, out)
  }
  return graph
}

describe('Chandy-Misra-Haas on a wait-for graph (AND model)', () => {
  it('declares a deadlock for an initiator iff it is on a cycle, within the reachable edges (many seeds)', () => {
    let cyclic = 0
    forSeeds(seedList(300), (seed) => {
      const graph = randomGraph(seed)
      for (const initiator of graph.keys()) {
        const net = new SimNetwork({
          seed,
          latency: { kind: 'uniform', min: 1, max: 9 },
          fifo: false,
        })
        const events: Array<{ node: NodeId; event: { cycle: NodeId[] } }> = []
        net.onEmit((node, event) => events.push({ node, event: event as { cycle: NodeId[] } }))
        const group = net.launch([...graph.keys()], cmhOnGraph({ waitsFor: graph }))
        group.request(initiator, { type: 'initiate' })
        net.run()
        const onCycle = reaches(graph, initiator, initiator)
        if (onCycle) cyclic++
        expect(events.length, `initiator ${initiator}`).toBe(onCycle ? 1 : 0)
        if (onCycle) {
          // The reported cycle is one: each waits for the next, the last for the initiator.
          const cycle = events[0]!.event.cycle
          expect(cycle[0]).toBe(initiator)
          for (let i = 0; i < cycle.length; i++)
            expect(graph.get(cycle[i]!)).toContain(cycle[(i + 1) % cycle.length])
        }
        expect(net.stats.sent).toBeLessThanOrEqual(reachableEdges(graph, initiator))
      }
    })
    expect(cyclic).toBeGreaterThan(100)
  })

  it('walks the texts example: a cycle across processes on a chain, probes (0,0,1) (0,1,2) ...', () => {
    // 0 waits for 1, 1 for 2, 2 for 3 and 4, 4 for 0: the probe returns to 0 through 4.
    const graph = new Map<NodeId, NodeId[]>([
      [0, [1]],
      [1, [2]],
      [2, [3, 4]],
      [3, []],
      [4, [0]],
    ])
    const net = new SimNetwork({ seed: 1 })
    const group = net.launch([0, 1, 2, 3, 4], cmhOnGraph({ waitsFor: graph }))
    group.request(0, { type: 'initiate' })
    net.run()
    const probes = net.trace
      .filter((e) => e.type === 'send')
      .map((e) => {
        const m = (e as { msg: { initiator: number; sender: number; receiver: number } }).msg
        return `(${m.initiator},${m.sender},${m.receiver})`
      })
    expect(probes).toEqual(['(0,0,1)', '(0,1,2)', '(0,2,3)', '(0,2,4)', '(0,4,0)'])
    const deadlock = net.trace.find((e) => e.type === 'emit') as { event: unknown }
    expect(deadlock.event).toEqual({ type: 'deadlock', cycle: [0, 1, 2, 4], victim: 4 })
  })
})
