/** How two vector timestamps relate: V < V' is 'before', V' < V is 'after', neither is 'concurrent'. */
export type Ordering = 'before' | 'after' | 'equal' | 'concurrent'

/**
 * What the generic algorithms (comparison, the texts' tests, cuts) need from a vector timestamp.
 * Dense clocks are keyed by process index, sparse clocks by process id.
 */
export interface VectorView<K> {
  /** The entry of process `key` (0 when absent). */
  get(key: K): number
  /** Every key whose entry is non-zero. */
  keys(): Iterable<K>
}

/** V < V' iff V != V' and V[k] <= V'[k] for all k; O(entries of both). */
export function compareVectors<K>(a: VectorView<K>, b: VectorView<K>): Ordering {
  let less = false
  let greater = false
  for (const k of a.keys()) {
    const x = a.get(k)
    const y = b.get(k)
    if (x < y) less = true
    else if (x > y) greater = true
    if (less && greater) return 'concurrent'
  }
  // Keys only b has: there b is larger (a holds 0).
  for (const k of b.keys()) {
    if (a.get(k) === 0 && b.get(k) > 0) {
      less = true
      if (greater) return 'concurrent'
    }
  }
  return less ? 'before' : greater ? 'after' : 'equal'
}

/** a -> b under the strong clock condition: V(a) < V(b). */
export function happenedBefore<K>(a: VectorView<K>, b: VectorView<K>): boolean {
  return compareVectors(a, b) === 'before'
}

/** a || b: neither V(a) < V(b) nor V(b) < V(a) (and not the same event). */
export function isConcurrent<K>(a: VectorView<K>, b: VectorView<K>): boolean {
  return compareVectors(a, b) === 'concurrent'
}

/**
 * The texts' O(1) concurrency test for e_i of p_i and e_j of p_j:
 * e_i || e_j iff V_i[i] > V_j[i] and V_j[j] > V_i[j].
 */
export function concurrentAt<K>(vi: VectorView<K>, i: K, vj: VectorView<K>, j: K): boolean {
  return vi.get(i) > vj.get(i) && vj.get(j) > vi.get(j)
}

/**
 * The texts' O(1) happened-before test for e_i of p_i and e_j of p_j (i != j):
 * e_i -> e_j iff V_i[i] <= V_j[i] (p_j has seen e_i's local time).
 */
export function happenedBeforeAt<K>(vi: VectorView<K>, i: K, vj: VectorView<K>): boolean {
  return vi.get(i) <= vj.get(i)
}

/** Sum of the entries. */
export function vectorSum<K>(v: VectorView<K>): number {
  let sum = 0
  for (const k of v.keys()) sum += v.get(k)
  return sum
}

/**
 * #(e) = (sum_j V(e)[j]) - 1: how many events causally precede e. Exact when every process
 * ticks by d = 1 and e's timestamp was taken after its own tick.
 */
export function causalPredecessors<K>(v: VectorView<K>): number {
  return vectorSum(v) - 1
}
