/**
 * What YoYo costs in messages on random connected graphs (every message takes 1 ms; ids are a
 * random permutation of 1..n). Set-up is exactly 2m: each node sends its id over each of its
 * edges. Each iteration costs 2 messages per edge still in the DAG (a value down, a vote up);
 * the leader's notice costs 2m - (n - 1). The table below is what the runs give now: it changes
 * only if the algorithm, the graph helper or the simulator's randomness does.
 */
import { createRandom } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { randomConnectedGraph } from '../src/yoyo/index.js'
import { runYoyo } from './support/yoyo.js'

interface Row {
  n: number
  m: number
  sources: number
  iterations: number
  setup: number
  yoyo: number
  leader: number
  total: number
}

function measure(n: number, extraPerNode: number, seed: number): Row {
  const rnd = createRandom(`yoyo-messages/${n}/${extraPerNode}/${seed}`)
  const ids = Array.from({ length: n }, (_, i) => i + 1)
  for (let i = n - 1; i > 0; i--) {
    const j = rnd.int(0, i)
    ;[ids[i], ids[j]] = [ids[j]!, ids[i]!]
  }
  const graph = randomConnectedGraph(ids, extraPerNode * n, rnd.next)
  const run = runYoyo(graph, seed)
  expect(run.agreed).toEqual({ leader: 1, term: 1 })
  const by = run.sentByType
  return {
    n,
    m: graph.edges.length,
    sources: run.sources[0] ?? 0,
    iterations: run.iterations!,
    setup: by.setup ?? 0,
    yoyo: (by.yo ?? 0) + (by.vote ?? 0),
    leader: by.leader ?? 0,
    total: run.net.stats.sent,
  }
}

describe('yoyo message counts', () => {
  const rows: Row[] = []
  for (const n of [8, 32, 128]) for (const extra of [0, 1, 3]) rows.push(measure(n, extra, 1))

  it('costs exactly 2m for set-up and 2m - (n - 1) for the notice', () => {
    for (const r of rows) {
      expect(r.setup).toBe(2 * r.m)
      expect(r.leader).toBe(2 * r.m - (r.n - 1))
      expect(r.total).toBe(r.setup + r.yoyo + r.leader)
      // At most every edge in every iteration, a value and a vote each.
      expect(r.yoyo).toBeLessThanOrEqual(2 * r.m * r.iterations)
    }
  })

  it('records iterations and totals for n = 8, 32, 128 (m = n - 1, 2n - 1, 4n - 1 capped)', () => {
    const table = rows.map((r) => [
      r.n,
      r.m,
      r.sources,
      r.iterations,
      r.setup,
      r.yoyo,
      r.leader,
      r.total,
    ])
    expect(table).toEqual([
      // n, m, sources, iterations, set-up, YO-/-YO, notice, total
      [8, 7, 3, 2, 14, 22, 7, 43],
      [8, 15, 3, 2, 30, 46, 23, 99],
      [8, 28, 1, 1, 56, 56, 49, 161], // complete: one source, one iteration
      [32, 31, 14, 3, 62, 122, 31, 215],
      [32, 63, 9, 2, 126, 234, 95, 455],
      [32, 127, 4, 2, 254, 370, 223, 847],
      [128, 127, 53, 3, 254, 502, 127, 883],
      [128, 255, 30, 2, 510, 974, 383, 1867],
      [128, 511, 15, 2, 1022, 1646, 895, 3563],
    ])
  })
})
