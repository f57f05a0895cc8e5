/**
 * Runs of a lock algorithm that follows views (`ViewRequest`): a membership service, played by
 * the test, installs views at the live members at different random times, around a crash and
 * (optionally) the crashed node's return as a joiner. Judged by `checkMutualExclusion` over all
 * nodes, and for liveness once the last view reached every member.
 */
import type { NodeId, ProtocolFactory, SimNetworkOptions } from '@sd/transport'
import { createRandom } from '@sd/transport'
import type { MutexRequest, ViewRequest } from '../../src/contract.js'
import { type Ask, type MutexRun, randomAsks, runMutex } from './harness.js'

export interface ViewPlan {
  ids: NodeId[]
  /** The node that crashes (and comes back, with `join`). */
  crashed: NodeId
  crashAt: number
  /** When it restarts (with `join`); Infinity otherwise. */
  restartAt: number
  /** Per view: its members and when each member gets it. */
  views: Array<{ view: ViewRequest; at: Map<NodeId, number> }>
  asks: Ask[]
}

const spread = (ids: readonly NodeId[], from: number, rnd: ReturnType<typeof createRandom>) =>
  new Map(ids.map((id) => [id, from + rnd.int(0, 80)]))

/**
 * View 1 (everyone) reaches each node at its own time; then one node crashes, after it got view 1
 * (so, restarted, it knows it was in a view); view 2 (without it) reaches the others at their own
 * times; with `join`, it restarts and view 3 (everyone again) admits it. Asks: 10 to 40 over
 * 400 ms, each held 1 to `maxHold` ms.
 */
export function planViews(seed: number, join: boolean, minNodes = 3, maxHold = 5): ViewPlan {
  const rnd = createRandom(`views/${seed}`)
  const ids = Array.from({ length: rnd.int(minNodes, 8) }, (_, i) => i + 1)
  const crashed = ids[rnd.int(0, ids.length - 1)]!
  const live = ids.filter((id) => id !== crashed)
  const first = spread(ids, rnd.int(0, 40), rnd)
  const crashAt = first.get(crashed)! + rnd.int(1, 60)
  const second = spread(live, crashAt + rnd.int(1, 40), rnd)
  const views: ViewPlan['views'] = [
    { view: { type: 'view', view: 1, members: ids }, at: first },
    { view: { type: 'view', view: 2, members: live }, at: second },
  ]
  let restartAt = Number.POSITIVE_INFINITY
  if (join) {
    restartAt = crashAt + rnd.int(20, 150)
    const base = Math.max(restartAt, ...second.values()) + 1
    views.push({ view: { type: 'view', view: 3, members: ids }, at: spread(ids, base, rnd) })
  }
  const asks = randomAsks(ids, () => rnd.next(), rnd.int(10, 40), 400, maxHold)
  return { ids, crashed, crashAt, restartAt, views, asks }
}

/** The last time a view reaches a member. */
export const settledAt = (plan: ViewPlan) =>
  Math.max(...plan.views.flatMap((v) => [...v.at.values()]))

export function runViews<Msg, Ev extends { type: string }>(
  factory: ProtocolFactory<Msg, MutexRequest | ViewRequest, Ev>,
  plan: ViewPlan,
  seed: number,
  net: Omit<SimNetworkOptions, 'seed'>,
  until?: number,
): MutexRun<Ev> {
  return runMutex(plan.ids, factory as ProtocolFactory<Msg, MutexRequest, Ev>, plan.asks, {
    seed,
    net,
    until,
    faults: (sim) => {
      sim.at(plan.crashAt, () => sim.crash(plan.crashed))
      if (Number.isFinite(plan.restartAt)) sim.at(plan.restartAt, () => sim.restart(plan.crashed))
      for (const { view, at } of plan.views) {
        for (const [id, t] of at) {
          sim.at(t, () => {
            if (!sim.isCrashed(id)) sim.request(id, view) // not sent to crashed nodes
          })
        }
      }
    },
  })
}

/**
 * Liveness: every ask of a node that never crashed got its entry, and the joiner (if it came
 * back) got one entry per ask it made after its restart.
 */
export function unserved<Ev extends { type: string }>(run: MutexRun<Ev>, plan: ViewPlan): string[] {
  const out: string[] = []
  const entered = (id: NodeId, after: number) =>
    run.events.filter((e) => e.node === id && e.event.type === 'acquired' && e.t > after).length
  for (const id of plan.ids) {
    if (id === plan.crashed) {
      if (!Number.isFinite(plan.restartAt)) continue
      const asked = plan.asks.filter((a) => a.node === id && a.at > plan.restartAt).length
      if (entered(id, plan.restartAt) < asked) out.push(`joiner ${id}: ${asked} asks not served`)
    } else {
      const asked = plan.asks.filter((a) => a.node === id).length
      const got = entered(id, -1)
      if (got !== asked) out.push(`node ${id}: ${got} entries for ${asked} asks`)
    }
  }
  return out
}
