import { createRandom, InvalidArgumentError, type NodeId } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { graphOf, randomConnectedGraph, yoyo } from '../src/yoyo/index.js'
import { eventsOf, minOf, runYoyo, UNTIL, type YoyoRun } from './support/yoyo.js'

/** What every fault-free run must show, whatever the graph and the delays. */
function expectElected(run: YoyoRun): void {
  const { graph } = run
  const n = graph.nodes.length
  const m = graph.edges.length
  expect(run.violations).toEqual([])
  expect(run.agreed).toEqual({ leader: minOf(graph.nodes), term: 1 })
  expect(eventsOf(run, 'leader')).toHaveLength(n) // once per node
  expect(eventsOf(run, 'elected')).toHaveLength(1)
  expect(eventsOf(run, 'ignored')).toEqual([])
  // Quiet: nothing left in flight or scheduled, and the last message long before the horizon.
  expect(run.net.pending).toBe(0)
  expect(run.lastSend).toBeLessThan(UNTIL)
  // Set-up is one id per edge end; YO- and -YO one message per DAG edge and iteration each;
  // the notice crosses every edge but the n - 1 it arrived on.
  expect(run.sentByType.setup ?? 0).toBe(2 * m)
  expect(run.sentByType.yo ?? 0).toBe(run.sentByType.vote ?? 0)
  expect(run.sentByType.leader ?? 0).toBe(2 * m - (n - 1))
  // No new source ever appears and every iteration with two or more defeats one at least: this
  // is what makes it terminate. The last iteration has the one source left.
  const { sources, iterations } = run
  expect(sources.length).toBe(iterations)
  sources.forEach((s, k) => {
    if (k > 0) expect(s).toBeLessThan(sources[k - 1]!)
  })
  if (n > 1) expect(sources.at(-1)).toBe(1)
}

describe('yoyo on random connected graphs', () => {
  it('elects the minimum id, agreed by every node, then goes quiet (200 seeds)', () => {
    forSeeds(seedList(200), (seed) => {
      const rnd = createRandom(seed)
      const n = rnd.int(2, 30)
      const ids = new Set<number>()
      while (ids.size < n) ids.add(rnd.int(-1000, 1000))
      const graph = randomConnectedGraph([...ids], rnd.int(0, 2 * n), rnd.next)
      const latency =
        seed % 2 === 0
          ? { kind: 'uniform' as const, min: 0, max: rnd.int(1, 30) }
          : { kind: 'exponential' as const, mean: rnd.int(1, 20), min: 0.5 }
      const run = runYoyo(graph, seed, { latency, fifo: seed % 3 !== 0 })
      expectElected(run)
    })
  })

  it('draws the same graph from the same random function, connected, with the extra edges asked', () => {
    const ids = Array.from({ length: 12 }, (_, i) => i * 7)
    const a = randomConnectedGraph(ids, 5, createRandom(3).next)
    expect(randomConnectedGraph(ids, 5, createRandom(3).next).edges).toEqual(a.edges)
    expect(a.edges).toHaveLength(11 + 5)
    const reached = new Set<NodeId>([0])
    for (const id of reached) for (const next of a.neighbors(id)) reached.add(next)
    expect(reached.size).toBe(12)
    // Asking for more edges than fit gives the complete graph.
    expect(randomConnectedGraph(ids, 1000, createRandom(3).next).edges).toHaveLength(66)
    expect(randomConnectedGraph([5], 3, createRandom(3).next).edges).toEqual([])
  })
})

const path = (ids: NodeId[]) =>
  graphOf(
    ids,
    ids.slice(1).map((id, i) => [ids[i]!, id] as const),
  )
const ring = (ids: NodeId[]) =>
  graphOf(
    ids,
    ids.map((id, i) => [id, ids[(i + 1) % ids.length]!] as const),
  )
const star = (center: NodeId, leaves: NodeId[]) =>
  graphOf(
    [center, ...leaves],
    leaves.map((leaf) => [center, leaf] as const),
  )
const complete = (ids: NodeId[]) =>
  graphOf(
    ids,
    ids.flatMap((a, i) => ids.slice(i + 1).map((b) => [a, b] as const)),
  )

describe('yoyo on small graphs drawn by hand (every message takes 1 ms)', () => {
  const cases: Array<{ name: string; graph: ReturnType<typeof graphOf>; iterations: number }> = [
    { name: 'a single node', graph: graphOf([7], []), iterations: 0 },
    { name: 'two nodes', graph: path([4, 2]), iterations: 1 },
    // One source (the orientation follows the path): everything collapses onto it at once.
    { name: 'a path in id order', graph: path([1, 2, 3, 4, 5, 6]), iterations: 1 },
    // Sources 1 and 2, meeting at sink 4: 2 is out in iteration 1.
    { name: 'a path 3-1-4-2', graph: path([3, 1, 4, 2]), iterations: 2 },
    { name: 'a star around its minimum', graph: star(1, [5, 3, 8, 2]), iterations: 1 },
    // Every leaf is a source: the center's NO defeats all but 1 in one iteration.
    { name: 'a star around its maximum', graph: star(9, [5, 3, 8, 1, 2]), iterations: 2 },
    // The edge 1-6 brings 1 to 6 twice (through 5 too): 6 prunes one of them.
    { name: 'a ring in id order', graph: ring([1, 2, 3, 4, 5, 6]), iterations: 1 },
    { name: 'a complete graph', graph: complete([4, 9, 2, 7, 5]), iterations: 1 },
    { name: 'string ids', graph: ring(['d', 'a', 'c', 'b']), iterations: 2 },
  ]
  for (const { name, graph, iterations } of cases) {
    it(`${name}: ${iterations} iteration(s)`, () => {
      const run = runYoyo(graph, 1)
      expectElected(run)
      expect(run.iterations).toBe(iterations)
    })
  }

  it('a single node leads without sending anything', () => {
    const run = runYoyo(graphOf([7], []), 1)
    expect(run.net.stats.sent).toBe(0)
    expect(run.agreed).toEqual({ leader: 7, term: 1 })
  })

  it('worked example, a ring 1-5-2-6-3-7: sources 1, 2, 3; two iterations', () => {
    // Set-up: 1, 2, 3 are sources (smaller than both neighbors), 5, 6, 7 sinks.
    // Iteration 1. 5 gets 1 and 2: YES to 1, NO to 2. 6 gets 2 and 3: YES to 2, NO to 3.
    // 7 gets 3 and 1: YES to 1, NO to 3. Sources 2 and 3 lose; the three NO edges flip:
    // 5 -> 2, 6 -> 3, 7 -> 3, so 2 is internal (5 -> 2 -> 6) and 3 a sink under 6 and 7.
    // Iteration 2. 1 sends 1 to 5 and 7; it flows 5 -> 2 -> 6 -> 3, and 7 -> 3. Sink 3 gets 1
    // twice: it keeps the edge from 6, prunes the one from 7, and is then a sink with a single
    // in-neighbor: it leaves. So do 6, 2, 5 and 7 in turn, each left hanging from one edge,
    // and 1 ends alone in the DAG: leader.
    const run = runYoyo(ring([1, 5, 2, 6, 3, 7]), 1)
    expectElected(run)
    expect(run.iterations).toBe(2)
    expect(run.sources).toEqual([3, 1])
    const defeated = eventsOf(run, 'defeated').map((e) => [e.node, e.iteration])
    expect(defeated.sort()).toEqual([
      [2, 1],
      [3, 1],
    ])
    const flips = eventsOf(run, 'flip').map((e) => [e.node, e.neighbor, e.iteration])
    expect(flips.sort()).toEqual([
      [5, 2, 1],
      [6, 3, 1],
      [7, 3, 1],
    ])
    expect(eventsOf(run, 'left').map((e) => e.node)).toEqual([3, 7, 6, 2, 5])
    // 6 edges: 12 ids; 6 DAG edges in each iteration (nothing pruned before the last);
    // the notice on 2 x 6 - 5 = 7 edge ends.
    expect(run.sentByType).toEqual({ setup: 12, yo: 12, vote: 12, leader: 7 })
  })

  it('worked example, a path 1-10-3-11-2: a defeated source per iteration, three iterations', () => {
    // Sources 1, 3, 2; sinks 10 (gets 1, 3) and 11 (gets 3, 2).
    // Iteration 1: 10 and 11 both say NO to 3, which loses; 10 -> 3 and 11 -> 3 flip.
    // Iteration 2: sink 3 gets 1 (via 10) and 2 (via 11): NO to 11, which says NO to 2.
    // 2 loses though it was never beaten in iteration 1: the survivors of an iteration can
    // be more than half the sources (2 of 3 here).
    // Iteration 3: 1 is the only source: the path 1 -> 10 -> 3 -> 11 -> 2 collapses.
    const run = runYoyo(path([1, 10, 3, 11, 2]), 1)
    expectElected(run)
    expect(run.iterations).toBe(3)
    expect(run.sources).toEqual([3, 2, 1])
    expect(eventsOf(run, 'defeated').map((e) => [e.node, e.iteration])).toEqual([
      [3, 1],
      [2, 2],
    ])
    expect(run.sentByType).toEqual({ setup: 8, yo: 12, vote: 12, leader: 4 })
  })
})

describe('yoyo requests and validation', () => {
  it('ignores start (it runs from the first instant) and resign (one shot), reporting them', () => {
    const graph = ring([3, 1, 2])
    const run = runYoyo(graph, 1, undefined, (net) => {
      net.request(2, { type: 'start' }, 1)
      net.request(1, { type: 'resign' }, 100)
    })
    expect(run.agreed).toEqual({ leader: 1, term: 1 })
    expect(eventsOf(run, 'ignored').map((e) => [e.node, e.reason])).toEqual([
      [2, 'already running: yoyo starts once, at start'],
      [1, 'yoyo is a one-shot election: no resign'],
    ])
  })

  /** The InvalidArgumentError behind a failed run (the simulator wraps what start threw). */
  function invalidArgument(body: () => void): InvalidArgumentError {
    try {
      body()
    } catch (error) {
      for (let e: unknown = error; e instanceof Error; e = e.cause) {
        if (e instanceof InvalidArgumentError) return e
      }
      throw error
    }
    throw new Error('expected an InvalidArgumentError')
  }

  it('rejects a neighbor relation that is not symmetric', () => {
    const table: Record<number, number[]> = { 1: [2, 3], 2: [1], 3: [] }
    const graph = { nodes: [1, 2, 3], edges: [], neighbors: (id: NodeId) => table[id as number]! }
    const error = invalidArgument(() => runYoyo(graph, 1))
    expect(error.message).toBe(
      'yoyo: the neighbor relation is not symmetric: 3 is a neighbor of 1, but neighbors(3) does not list 1',
    )
  })

  it('rejects a neighbor that is not a member, itself, or one listed twice', () => {
    const run = (table: Record<number, NodeId[]>) =>
      invalidArgument(() =>
        runYoyo({ nodes: [1, 2], edges: [], neighbors: (id) => table[id as number]! }, 1),
      ).message
    expect(run({ 1: [2, 99], 2: [1] })).toBe(
      'yoyo: neighbor 99 of node 1 is not a member of the group [1,2]',
    )
    expect(run({ 1: [1, 2], 2: [1] })).toBe('yoyo: node 1 lists itself as a neighbor')
    expect(run({ 1: [2, 2], 2: [1] })).toBe('yoyo: neighbors(1) lists 2 twice')
  })

  it('rejects bad options and bad graphs at once', () => {
    expect(() => yoyo({} as never)).toThrow(InvalidArgumentError)
    expect(() => yoyo({ neighbors: () => [], ring: true } as never)).toThrow(/unknown option/)
    expect(() => graphOf([1, 2], [[1, 3]])).toThrow(/not a node/)
    expect(() => graphOf([1, 2], [[1, 1]])).toThrow(/loop/)
    expect(() =>
      graphOf(
        [1, 2],
        [
          [1, 2],
          [2, 1],
        ],
      ),
    ).toThrow(/twice/)
    expect(() => randomConnectedGraph([1, 1], 0, Math.random)).toThrow(InvalidArgumentError)
    expect(() => randomConnectedGraph([1, 2], -1, Math.random)).toThrow(/extraEdges/)
  })
})
