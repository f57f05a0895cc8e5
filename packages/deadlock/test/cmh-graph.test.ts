import { createRandom, isNodeId, type NodeId, shape } from '@sd/transport'
import { ofType, runInSim } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { cmhOnGraph } from '../src/detect/cmh-graph.js'

/** The fields of a probe the texts' example prints. */
const isProbe = shape({ initiator: isNodeId, sender: isNodeId, receiver: isNodeId })

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
        const { net, events } = runInSim([...graph.keys()], cmhOnGraph({ waitsFor: graph }), {
          seed,
          net: { latency: { kind: 'uniform', min: 1, max: 9 }, fifo: false },
          plan: (_net, group) => group.request(initiator, { type: 'initiate' }),
        })
        const onCycle = reaches(graph, initiator, initiator)
        if (onCycle) cyclic++
        expect(events.length, `initiator ${initiator}`).toBe(onCycle ? 1 : 0)
        if (onCycle) {
          // The reported cycle is one: each waits for the next, the last for the initiator.
          const cycle = ofType(events, 'deadlock')[0]!.event.cycle
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
    const { net, events } = runInSim([0, 1, 2, 3, 4], cmhOnGraph({ waitsFor: graph }), {
      seed: 1,
      plan: (_net, group) => group.request(0, { type: 'initiate' }),
    })
    const probes = net.trace
      .flatMap((e) => (e.type === 'send' && isProbe(e.msg) ? [e.msg] : []))
      .map((m) => `(${m.initiator},${m.sender},${m.receiver})`)
    expect(probes).toEqual(['(0,0,1)', '(0,1,2)', '(0,2,3)', '(0,2,4)', '(0,4,0)'])
    expect(events.map((e) => e.event)).toEqual([
      { type: 'deadlock', cycle: [0, 1, 2, 4], victim: 4 },
    ])
  })
})
