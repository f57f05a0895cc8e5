/**
 * What the nodes of a trial believed over time, from their timestamped views: each view holds from
 * its `at` until the same node's next one. Pure functions over a list of views.
 */
import type { View } from './election-protocol.js'

/** The latest view of each node, by id. */
export type State = ReadonlyMap<string, View>

/** Every node of `ids` follows the same leader, one of `ids`, which believes itself leader. */
export function agreedLeader(state: State, ids: readonly string[]): string | undefined {
  let leader: string | undefined
  for (const id of ids) {
    const view = state.get(id)
    if (!view?.leader) return undefined
    if (leader === undefined) leader = view.leader
    else if (view.leader !== leader) return undefined
  }
  if (leader === undefined || !ids.includes(leader) || !state.get(leader)?.self) return undefined
  return leader
}

/** At least two of `ids` each believe themselves leader. */
export function twoLeaders(state: State, ids: readonly string[]): boolean {
  return ids.filter((id) => state.get(id)?.self).length >= 2
}

/** Nodes of `ids` follow two different leaders (or more). */
export function divergent(state: State, ids: readonly string[]): boolean {
  const leaders = new Set(ids.map((id) => state.get(id)?.leader).filter((l) => l))
  return leaders.size >= 2
}

/**
 * The stretches of [from, to) during which `holds` is true of the nodes' state, as
 * [start, end) pairs. Views at the same instant all apply before the state is judged.
 */
export function stretches(
  views: readonly View[],
  from: number,
  to: number,
  holds: (state: State) => boolean,
): Array<[number, number]> {
  const sorted = [...views].sort((a, b) => a.at - b.at)
  const state = new Map<string, View>()
  let i = 0
  while (i < sorted.length && sorted[i]!.at <= from) {
    state.set(sorted[i]!.id, sorted[i]!)
    i++
  }
  const out: Array<[number, number]> = []
  let since = holds(state) ? from : undefined
  while (i < sorted.length && sorted[i]!.at < to) {
    const at = sorted[i]!.at
    while (i < sorted.length && sorted[i]!.at === at) {
      state.set(sorted[i]!.id, sorted[i]!)
      i++
    }
    const now = holds(state)
    if (now && since === undefined) since = at
    if (!now && since !== undefined) {
      out.push([since, at])
      since = undefined
    }
  }
  if (since !== undefined && to > since) out.push([since, to])
  return out
}

/** How long, in [from, to), `holds` was true. */
export function totalMs(
  views: readonly View[],
  from: number,
  to: number,
  holds: (state: State) => boolean,
): number {
  return stretches(views, from, to, holds).reduce((sum, [a, b]) => sum + (b - a), 0)
}

/** The first instant of [from, to) at which `holds` is true, or undefined. */
export function firstTime(
  views: readonly View[],
  from: number,
  to: number,
  holds: (state: State) => boolean,
): number | undefined {
  return stretches(views, from, to, holds)[0]?.[0]
}
