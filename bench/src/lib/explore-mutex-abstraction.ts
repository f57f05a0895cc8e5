/**
 * Dead Lamport clocks in the explore benches' Ricart-Agrawala scenario (`mutexScenario`: every
 * node asks once, at setup, and releases 1 ms after it enters; no faults, no views), as a key
 * abstraction (`ExploreScenario.abstraction`, see the transport README, "Abstraction: dead values").
 *
 * Why it is sound. A Ricart-Agrawala node reads its Lamport clock only to stamp what it sends:
 * its request (whose time every decision compares: a peer defers it or not by (T, pid), an OK
 * counts when its `req` equals the request's time) and its OKs (whose `time` a receiver only
 * merges into its own clock). So the clocks, and the `time` of every OK in flight, matter to the
 * future only through requests stamped later. Once every node has stamped its one request
 * (its resource's `time` is above 0: a stamp is the clock after an increment, from 0) and none is
 * queued, no request will ever be stamped again: the scenario plans nothing but releases after
 * setup. From then on the clocks and OK times are dead, and so is the order of the deferred list
 * (it only orders the stamps of the OKs sent at release, each to another peer, on its own link),
 * and the disk (it holds the clock, read only by a restarted node: the benches crash none).
 * Everything a decision reads is kept: each request's time and token, who answered, who is
 * deferred with the time of its request, and each message's `req` and type.
 */
import type { KeyAbstraction } from '@sd/transport/explore'

interface Resource {
  time: number
  queued: unknown[]
  deferred: Array<[number, number]>
}
interface Snapshot {
  clock: number
  resources: Array<[string, Resource]>
}

/** Every node has stamped its request and none waits for another turn. */
function everyRequestStamped(ids: readonly number[], snapshot: (id: number) => unknown): boolean {
  for (const id of ids) {
    const s = snapshot(id) as Snapshot | undefined
    if (s === undefined || s.resources.length === 0) return false
    for (const [, r] of s.resources) if (!(r.time > 0) || r.queued.length > 0) return false
  }
  return true
}

export function ricartAgrawalaDeadClocks(ids: readonly number[]): KeyAbstraction {
  return {
    context: (snapshot) =>
      everyRequestStamped(ids, snapshot as (id: number) => unknown) ? true : undefined,
    node: (_id, snapshot) => {
      const s = snapshot as Snapshot
      return {
        ...s,
        clock: null,
        resources: s.resources.map(([name, r]) => [
          name,
          { ...r, deferred: [...r.deferred].sort(([a], [b]) => a - b) },
        ]),
      }
    },
    message: (msg) => {
      const m = msg as { type: string }
      return m.type === 'ok' || m.type === 'deny' ? { ...m, time: null } : m
    },
  }
}

interface LamportResource {
  state: 'RELEASED' | 'WAITING' | 'WANTED' | 'HELD'
  time: number
  queued: number
}
interface LamportSnapshot {
  clock: number
  lastSeen: Array<[number, number]>
  resources: Array<[string, LamportResource]>
}

/**
 * The largest request time once every node of the Lamport scenario has stamped its one request
 * (none queued), else undefined: from then on it bounds every time a decision compares against.
 */
function lamportThreshold(ids: readonly number[], snapshot: (id: number) => unknown) {
  let max = 0
  for (const id of ids) {
    const s = snapshot(id) as LamportSnapshot | undefined
    if (s === undefined || s.resources.length === 0) return undefined
    for (const [, r] of s.resources) {
      if (!(r.time > 0) || r.queued > 0 || r.state === 'WAITING') return undefined
      max = Math.max(max, r.time)
    }
  }
  return max
}

/**
 * Capped Lamport times in the explore benches' scenario for Lamport's mutex (every node asks once
 * at setup, releases 1 ms after entering; no faults, no views).
 *
 * Why it is sound. Once every node has stamped its one request, no request is stamped again, so
 * the request times are fixed; let M be the largest. A time then only flows: a clock is merged
 * with a received time (max) and stamps what the node sends (one more, on replies and releases);
 * a received time raises `lastSeen` for its sender (max); and the one comparison left is a
 * WANTED node q's rule "(lastSeen[p], p) > (T_q, q) for every peer p", with T_q <= M (a queue
 * entry and a release's `req` are request times, kept exact). Every time above M compares alike
 * with every T_q, and cutting at M + 1 commutes with max and with adding one (two values both
 * above M stay above it), so each clock and each message's `time` counts as min(t, M + 1); at a
 * WANTED node q, lastSeen only matters against T_q, so each entry counts as min(t, T_q + 1); at a
 * node that is not WANTED (it held, or holds, the lock: it never asks again) lastSeen is read by
 * nothing, and left out.
 */
export function lamportCappedTimes(ids: readonly number[]): KeyAbstraction {
  return {
    // The context is the cap, M + 1: only states with the same request times' maximum merge.
    context: (snapshot) => {
      const m = lamportThreshold(ids, snapshot as (id: number) => unknown)
      return m === undefined ? undefined : m + 1
    },
    node: (_id, snapshot, _storage, context) => {
      const cap = context as number
      const s = snapshot as LamportSnapshot
      const [, r] = s.resources[0]!
      const wanted = s.resources.length === 1 && r.state === 'WANTED'
      return {
        ...s,
        clock: Math.min(s.clock, cap),
        lastSeen: wanted ? s.lastSeen.map(([p, t]) => [p, Math.min(t, r.time + 1)]) : null,
      }
    },
    message: (msg, _from, _to, context) => {
      const m = msg as { type: string; time: number }
      return { ...m, time: Math.min(m.time, context as number) }
    },
  }
}
