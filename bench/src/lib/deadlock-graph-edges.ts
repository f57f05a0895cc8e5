/** Seeded wait-for graphs for the graph benchmark, as parallel arrays of process ids. */
import { createRandom } from '@sd/transport'

export interface EdgeList {
  /** Process ids, `p0` to `p{n-1}`: one string object per process, shared by every edge that names it. */
  ids: string[]
  from: string[]
  to: string[]
  /** The same edges by process number (for the numeric-id variant). */
  fromIndex: Int32Array
  toIndex: Int32Array
}

/**
 * `m` distinct waits between `n` processes, each a uniform random ordered pair without self-waits.
 * With m = 10 n this has one giant strongly connected component, so every process is deadlocked and
 * the depth-first searches go as deep as they can: the hard case for a recursive SCC.
 */
export function randomWaits(n: number, m: number, seed: string): EdgeList {
  const next = createRandom(seed).next
  return build(n, m, () => {
    const a = Math.floor(next() * n)
    const b = Math.floor(next() * n)
    return a === b ? undefined : [a, b]
  })
}

/**
 * `m` distinct waits that only go from earlier to later processes of a random order: no cycle, so
 * finding one means searching the whole graph (the worst case of `findCycle`).
 */
export function acyclicWaits(n: number, m: number, seed: string): EdgeList {
  const next = createRandom(seed).next
  const rank = Array.from({ length: n }, (_, i) => i)
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1))
    ;[rank[i], rank[j]] = [rank[j]!, rank[i]!]
  }
  return build(n, m, () => {
    const a = Math.floor(next() * n)
    const b = Math.floor(next() * n)
    if (a === b) return undefined
    return a < b ? [rank[a]!, rank[b]!] : [rank[b]!, rank[a]!]
  })
}

function build(n: number, m: number, pick: () => [number, number] | undefined): EdgeList {
  const ids = Array.from({ length: n }, (_, i) => `p${i}`)
  const seen = new Set<number>()
  const fromIndex = new Int32Array(m)
  const toIndex = new Int32Array(m)
  for (let k = 0; k < m; ) {
    const pair = pick()
    if (pair === undefined) continue
    const key = pair[0] * n + pair[1]
    if (seen.has(key)) continue
    seen.add(key)
    fromIndex[k] = pair[0]
    toIndex[k] = pair[1]
    k++
  }
  const from = Array.from(fromIndex, (i) => ids[i]!)
  const to = Array.from(toIndex, (i) => ids[i]!)
  return { ids, from, to, fromIndex, toIndex }
}
