/**
 * A relabel hook for the causal broadcast (`ExploreScenario.relabel` of `@sd/transport/explore`):
 * renames node ids in its messages, events and snapshots, so the explorer's symmetry reduction can
 * treat the members as interchangeable. The buffer's vectors are dense, one entry per member in
 * sorted order, so renaming ids permutes their entries rather than renaming numbers in them (a
 * vector's counts are numbers too, which a generic walk could not tell from ids). Payloads are
 * the application's: `payload` renames the ids they carry, if any.
 */
import { compareNodeIds, type NodeId } from '../ids.js'

/** Renames the ids in the data the causal broadcast puts in messages, events and snapshots. */
export type CausalRelabel = (data: unknown, rename: (id: NodeId) => NodeId) => unknown

/** Fields that hold a vector clock (a message's, a delivery's, the buffer's). */
const VECTORS = new Set(['clock', 'local', 'delivered'])

/**
 * @param members the group, as given to `causalBroadcast` (sorted the same way)
 * @param payload renames the ids inside a payload (default: payloads name no node)
 */
export function causalRelabel(
  members: readonly NodeId[],
  payload: (payload: unknown, rename: (id: NodeId) => NodeId) => unknown = (p) => p,
): CausalRelabel {
  const sorted = [...members].sort(compareNodeIds)
  return (data, rename) => {
    // Entry k (member k's) moves to the place of member k's new name.
    const to = sorted.map((id) => sorted.indexOf(rename(id)))
    const permute = (v: unknown[]) => {
      const out = [...v]
      to.forEach((place, k) => {
        out[place] = v[k]
      })
      return out
    }
    const walk = (v: unknown, key: string | undefined): unknown => {
      if (Array.isArray(v)) {
        if (key !== undefined && VECTORS.has(key) && v.length === sorted.length) return permute(v)
        // The member list is sorted and the whole group: the same list under any renaming.
        if (key === 'members') return v
        const items = v.map((x) => walk(x, undefined))
        // Held messages are kept by sender, then sequence number: sorted again once renamed.
        return key === 'held' ? items.sort(bySenderThenSeq) : items
      }
      if (v === null || typeof v !== 'object') return v
      const out: Record<string, unknown> = {}
      for (const [k, x] of Object.entries(v))
        out[k] =
          k === 'from' ? rename(x as NodeId) : k === 'payload' ? payload(x, rename) : walk(x, k)
      return out
    }
    return walk(data, undefined)
  }
}

function bySenderThenSeq(a: unknown, b: unknown): number {
  const x = a as { from: NodeId; seq: number }
  const y = b as { from: NodeId; seq: number }
  const from = compareNodeIds(x.from, y.from)
  return from !== 0 ? from : x.seq - y.seq
}
