/**
 * Check spec for Chandy-Misra-Haas on a fixed wait-for graph (`cmhOnGraph` of @sd/deadlock): the
 * algorithm alone, without the resource manager around it.
 */
import {
  type CmhGraphEvent,
  type CmhGraphMsg,
  type CmhGraphRequest,
  cmhOnGraph,
} from '@sd/deadlock'
import type { NodeId, ProtocolFactory } from '@sd/transport'
import type { ExploreScenario } from '@sd/transport/explore'
import type { CheckSpec } from './spec.js'

/** Two cycles sharing process 2 (1 → 2 → 3 → 1 and 2 ⇄ 4), and 5 waiting into them from outside. */
const EDGES: ReadonlyArray<readonly [NodeId, NodeId]> = [
  [1, 2],
  [2, 3],
  [3, 1],
  [2, 4],
  [4, 2],
  [5, 1],
]

const edgesAt = (n: number) => EDGES.filter(([a, b]) => Number(a) <= n && Number(b) <= n)

/** The processes on some cycle: those that reach themselves along the edges. */
function onCycle(n: number): Set<NodeId> {
  const edges = edgesAt(n)
  const out = new Set<NodeId>()
  for (let p = 1; p <= n; p++) {
    const seen = new Set<NodeId>()
    const todo: NodeId[] = [p]
    while (todo.length > 0) {
      const at = todo.pop()!
      for (const [a, b] of edges)
        if (a === at && !seen.has(b)) {
          seen.add(b)
          todo.push(b)
        }
    }
    if (seen.has(p)) out.add(p)
  }
  return out
}

export const cmhGraphCheck: CheckSpec = {
  scenario: 'deadlock-cmh-graph',
  what: (n) =>
    `processes 1..${n} on the fixed wait-for graph ${edgesAt(n)
      .map(([a, b]) => `${String(a)} → ${String(b)}`)
      .join(
        ', ',
      )} (AND model), every process initiating a detection at the start; probes in every order. Every deadlock declared names a cycle of the graph, and at the end every process on a cycle declared once and no other did (a process that only waits into a cycle is deadlocked, but its probe never comes back). No liveness goal: the end state is judged instead`,
  defaultN: 5,
  minN: 3,
  maxN: 5,
  // Stateful (cmhOnGraph has snapshot() and restore()): exhausted at every n, 175 states at
  // n = 3, about 16,000 at 4 and 206,000 at 5. Stateless, 100,000 schedules at n = 5 took three
  // minutes and did not exhaust it.
  defaults: { depth: 100 },
  build: (n) => cmhGraphScenario(n),
}

type CmhGraphFactory = ProtocolFactory<CmhGraphMsg, CmhGraphRequest, CmhGraphEvent>

/** The spec's scenario; `factory` builds each process from the graph's waits (tests break it). */
export function cmhGraphScenario(
  n: number,
  factory: (waitsFor: ReadonlyMap<NodeId, readonly NodeId[]>) => CmhGraphFactory = (waitsFor) =>
    cmhOnGraph({ waitsFor }),
): ExploreScenario<CmhGraphEvent> {
  const ids = Array.from({ length: n }, (_, i): NodeId => i + 1)
  const edges = edgesAt(n)
  const waitsFor = new Map(ids.map((id) => [id, edges.filter(([a]) => a === id).map(([, b]) => b)]))
  const cyclic = onCycle(n)
  return {
    setup(net) {
      net.launch(ids, factory(waitsFor))
      for (const id of ids) net.request(id, { type: 'initiate' })
    },
    invariant({ net, events }) {
      const declared = new Map<NodeId, number>()
      for (const { node, event } of events) {
        if (event.type !== 'deadlock') continue
        declared.set(node, (declared.get(node) ?? 0) + 1)
        const { cycle } = event
        for (const [i, p] of cycle.entries()) {
          const next = cycle[(i + 1) % cycle.length]!
          if (!edges.some(([a, b]) => a === p && b === next))
            return `node ${String(node)} declared the cycle ${cycle.map(String).join(' → ')}, but ${String(p)} does not wait for ${String(next)}`
        }
      }
      if (net.choices().length > 0) return undefined
      for (const id of ids) {
        const times = declared.get(id) ?? 0
        if (cyclic.has(id) && times !== 1)
          return `process ${String(id)} is on a cycle and declared ${times} deadlocks`
        if (!cyclic.has(id) && times > 0)
          return `process ${String(id)} is on no cycle, yet declared a deadlock`
      }
      return undefined
    },
  }
}
