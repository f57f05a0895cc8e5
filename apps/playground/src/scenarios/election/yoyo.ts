/**
 * YoYo in the playground, on a random connected graph (not the full mesh): the minimum id wins.
 */
import { randomConnectedGraph, yoyo } from '@sd/election'
import { createRandom, type NodeId } from '@sd/transport'
import type { Scenario } from '../../scenario.js'
import { runElectionPlan } from './run.js'

export const electionYoyo: Scenario = {
  name: 'election-yoyo',
  title:
    'YoYo on a random connected graph: sources, YO- / -YO, flips and pruning elect the minimum',
  description:
    'n nodes with random distinct ids on a random connected graph (a random spanning tree plus about n/2 extra edges, from the seed). Set-up orients every edge from the smaller id to the larger; each iteration sends the minima down from the sources (YO-) and YES / NO votes back up (-YO); every NO flips its edge, and sinks with one in-edge are pruned, until one source is left: the minimum id, which announces itself along the edges. A one-shot election on a failure-free network: --crash is not accepted.',
  randomIds: true,
  pause: {
    accepts:
      'a pause only slows YoYo down (it has no timeout): the paused node handles its held messages at its resume',
  },
  defaultN: 8,
  minN: 1,
  maxN: 64,
  run({ n, seed, faults }) {
    const random = createRandom(`yoyo/${seed}`).next
    // Random distinct ids, so the minimum is not simply the first node.
    const pool = Array.from({ length: 10 * n }, (_, i) => i + 1)
    const ids: NodeId[] = []
    for (let i = 0; i < n; i++) ids.push(pool.splice(Math.floor(random() * pool.length), 1)[0]!)
    const graph = randomConnectedGraph(ids, Math.floor(n / 2), random)
    const run = runElectionPlan(
      yoyo({ neighbors: (id) => graph.neighbors(id) }),
      { ids, faults },
      seed,
    )
    run.result.minimum = Math.min(...(ids as number[]))
    run.result.edges = graph.edges.length
    return run
  },
}
