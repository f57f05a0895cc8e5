/**
 * The relabel hook of the causal broadcast (`ExploreScenario.relabel`), for the symmetry bench:
 * the same as the playground's `sd check causal-order --symmetry` hook
 * (apps/playground/src/check/causal-relabel.ts; the bench imports no app). The buffer's vectors
 * are dense, one entry per member in sorted order, so renaming ids permutes their entries;
 * payloads name their sender (`m<id>.<j>`).
 */
import { compareNodeIds, type NodeId } from '@sd/transport'

/** Fields holding a vector clock of the buffer (message, delivery, snapshot). */
const VECTORS = new Set(['clock', 'local', 'delivered'])

export function causalRelabel(
  members: readonly NodeId[],
): (data: unknown, rename: (id: NodeId) => NodeId) => unknown {
  const byText = new Map(members.map((id) => [String(id), id]))
  return (data, rename) => {
    // Entry k (member k's) moves to the place of member k's new name.
    const to = members.map((id) => members.indexOf(rename(id)))
    const permute = (v: unknown[]) => {
      const out = [...v]
      to.forEach((place, k) => {
        out[place] = v[k]
      })
      return out
    }
    const payload = (p: unknown) => {
      if (typeof p !== 'string') return p
      const match = /^m([^.]+)(\..*)?$/.exec(p)
      const id = match ? byText.get(match[1]!) : undefined
      return id === undefined ? p : `m${String(rename(id))}${match![2] ?? ''}`
    }
    const walk = (v: unknown, key: string | undefined): unknown => {
      if (Array.isArray(v)) {
        if (key !== undefined && VECTORS.has(key) && v.length === members.length) return permute(v)
        // The member list is sorted and the whole group: the same list after any renaming.
        if (key === 'members') return v
        const items = v.map((x) => walk(x, undefined))
        // Held messages are listed by sender, then sequence number: sorted again once renamed.
        return key === 'held' ? items.sort(bySenderThenSeq) : items
      }
      if (v === null || typeof v !== 'object') return v
      const out: Record<string, unknown> = {}
      for (const [k, x] of Object.entries(v))
        out[k] = k === 'from' ? rename(x as NodeId) : k === 'payload' ? payload(x) : walk(x, k)
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
