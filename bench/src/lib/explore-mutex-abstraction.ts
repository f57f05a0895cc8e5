/**
 * Dead values in the explore benches' @sd/mutex scenarios (`mutexScenario`: every node asks
 * once, at setup, for one resource, and releases 1 ms after it enters; no faults, no views, no
 * `alwaysAnswer`), as key abstractions (`ExploreScenario.abstraction`, see the transport README,
 * "Abstraction: dead values"). Each leaves out only what no step, and no `acquired` or `released`
 * event, can depend on from the state on; the argument is beside each.
 *
 * Shared facts. A node's request is stamped once (its resource's `time` goes from 0 to the clock
 * after an increment, so above 0) and never again: the scenario plans nothing but releases after
 * setup. A node whose resource is RELEASED with a time above 0 is done: it entered and left, and
 * only answers what still comes to it. The disk (Ricart-Agrawala's clock) is read only by a
 * restarted node, and the benches crash none.
 */
import type { KeyAbstraction } from '@sd/transport/explore'

interface Resource {
  state: 'RELEASED' | 'WAITING' | 'WANTED' | 'HELD'
  time: number
}
interface RaResource extends Resource {
  queued: unknown[]
  deferred: Array<[number, number]>
}
interface LamportResource extends Resource {
  queued: number
}
interface Snapshot<R> {
  clock: number
  resources: Array<[string, R]>
}

const resourceOf = <R>(snapshot: unknown): R | undefined =>
  (snapshot as Snapshot<R> | undefined)?.resources[0]?.[1]

const done = (r: Resource) => r.state === 'RELEASED' && r.time > 0

/** A done node's resource as the key keeps it: nothing of its request is read again. */
const doneResource = (s: Snapshot<Resource>) => ({
  ...s,
  resources: s.resources.map(([name]) => [name, { state: 'RELEASED' }]),
})

/**
 * Ricart-Agrawala. A done node answers every request with an OK at once (it neither holds nor
 * wants), whatever its request's time, token, OKs and answers were: those are dead, always. Its
 * clock is not: it stamps those OKs, whose `time` a receiver merges into its clock, and a clock
 * stamps the requests still to be made. A node reads its clock only to stamp what it sends, and
 * an OK's `time` only to merge it; every decision compares request times (a peer defers by
 * (T, pid), an OK counts when its `req` is the request's time). So once every node has stamped
 * its request (context 'stamped'), the clocks and OK times are dead too, and so is the order of
 * the deferred list (it only orders the stamps of the OKs sent at release, each to another peer,
 * on its own link). Before that (context 'some'), only the done nodes' requests are left out.
 */
export function ricartAgrawalaDeadClocks(ids: readonly number[]): KeyAbstraction {
  return {
    context: (snapshot) => {
      for (const id of ids) {
        const r = resourceOf<RaResource>(snapshot(id))
        if (r === undefined || !(r.time > 0) || r.queued.length > 0) return 'some'
      }
      return 'stamped'
    },
    node: (_id, snapshot, _storage, context) => {
      const s = snapshot as Snapshot<RaResource>
      const r = resourceOf<RaResource>(s)
      const over = r !== undefined && done(r) && r.queued.length === 0
      if (context === 'some') return over ? doneResource(s) : s
      if (over) return { ...doneResource(s), clock: null }
      return {
        ...s,
        clock: null,
        resources: s.resources.map(([name, res]) => [
          name,
          { ...res, deferred: [...res.deferred].sort(([a], [b]) => a - b) },
        ]),
      }
    },
    message: (msg, _from, _to, context) => {
      const m = msg as { type: string }
      return context === 'stamped' && (m.type === 'ok' || m.type === 'deny')
        ? { ...m, time: null }
        : m
    },
  }
}

/**
 * Lamport's mutex. A done node's request is dead (its time and token), and so are its queue and
 * `lastSeen`: only a WANTED node reads them (to enter), and a peer's one request is queued and
 * removed whatever else the queue holds (no second request, and its RELEASE follows its REQUEST on
 * the FIFO link). The same holds for a HELD node's `lastSeen` and queue. Its clock still stamps
 * replies and releases, whose `time` raises `lastSeen` at a WANTED receiver.
 *
 * Once every node has stamped its request, the request times are fixed, and the WANTED nodes W
 * only get fewer. A time then only flows: a clock is merged with a received time (max) and stamps
 * what the node sends (one more); a received time raises `lastSeen` for its sender (max); and the
 * one comparison left is a WANTED node q's rule "(lastSeen[p], p) > (T_q, q) for every peer p".
 * With M the largest T_q over W, every time above M compares alike with every T_q now and later,
 * and cutting at M + 1 commutes with max and with adding one: so each clock and each message's
 * `time` counts as min(t, M + 1) (the cap: M + 1, or 0 once no node waits). At a WANTED node q
 * each `lastSeen[p]` counts as whether (lastSeen[p], p) > (T_q, q): the rule reads nothing else,
 * a received time raises the entry by max, so whether it passes later depends only on what comes,
 * and once true it stays true. A queue entry and a RELEASE's `req` are request
 * times, kept exact. Before every request is stamped (context 'some'), only what is dead at the
 * done and HELD nodes is left out.
 *
 * Dead messages. After that, a node p is deaf when it is HELD or done, its clock is at least the
 * cap, and it has heard every peer's request (lastSeen[q] >= T_q: q's messages to p carry growing
 * times and its REQUEST carries T_q, so on the FIFO link the REQUEST came). It stays deaf (it only
 * goes from HELD to done, its clock and `lastSeen` only grow, the cap only falls), and no REQUEST
 * will reach it again (each peer asks once). What can reach it is a REPLY or a RELEASE: the
 * delivery merges its clock (still at least the cap, so the key's clock stays the cap), raises
 * `lastSeen` and takes a request off the queue (both dead at a HELD or done node; the request is
 * there, its REQUEST came first), and sends and emits nothing. So every message to a deaf node
 * is left out of the key, all of a link's at once. The context is then the cap plus 2^16 times
 * the set of deaf nodes (bit i for ids[i]).
 */
export function lamportCappedTimes(ids: readonly number[]): KeyAbstraction {
  return {
    context: (snapshot) => {
      let max = -1
      const times = new Map<number, number>()
      for (const id of ids) {
        const r = resourceOf<LamportResource>(snapshot(id))
        if (r === undefined || !(r.time > 0) || r.queued > 0 || r.state === 'WAITING') return 'some'
        if (r.state === 'WANTED') max = Math.max(max, r.time)
        times.set(id, r.time)
      }
      const cap = max + 1
      let deaf = 0
      ids.forEach((id, i) => {
        const s = snapshot(id) as LamportSnapshot
        const r = resourceOf<LamportResource>(s)!
        if (r.state === 'WANTED' || s.clock < cap) return
        const seen = new Map(s.lastSeen)
        if (ids.every((q) => q === id || (seen.get(q) ?? -1) >= times.get(q)!)) deaf |= 1 << i
      })
      return cap + DEAF * deaf
    },
    node: (_id, snapshot, _storage, context) => {
      const s = snapshot as LamportSnapshot
      const r = resourceOf<LamportResource>(s)
      if (r === undefined) return s
      const cap = typeof context === 'number' ? context % DEAF : undefined
      const clock = cap === undefined ? s.clock : Math.min(s.clock, cap)
      if (done(r) && r.queued === 0) return { ...doneResource(s), lastSeen: null, clock }
      if (r.state === 'HELD')
        return {
          ...s,
          lastSeen: null,
          clock,
          resources: s.resources.map(([name, res]) => [name, { ...res, queue: null }]),
        }
      if (r.state !== 'WANTED' || cap === undefined) return s
      // Whether each peer was heard past this request: all the rule reads, and it only turns true.
      const mine = r.time
      const past = ([p, t]: [number, number]) => [p, t > mine || (t === mine && p > _id)]
      return { ...s, clock, lastSeen: s.lastSeen.map(past) }
    },
    message: (msg, _from, to, context) => {
      if (typeof context !== 'number') return msg
      const deaf = Math.floor(context / DEAF)
      if (deaf !== 0 && (deaf & (1 << ids.indexOf(to as number))) !== 0) return undefined
      const m = msg as { type: string; time: number }
      return m.type === 'request' ? m : { ...m, time: Math.min(m.time, context % DEAF) }
    },
  }
}

/** The context's unit for the set of deaf nodes: caps stay far below it. */
const DEAF = 2 ** 16

type LamportSnapshot = Snapshot<LamportResource> & { lastSeen: Array<[number, number]> }
