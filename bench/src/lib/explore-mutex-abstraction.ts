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
  queue: Array<{ time: number; pid: number }>
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
 * and once true it stays true. A queue entry and a RELEASE's `req` are request times, exact.
 * Before every request is stamped (context 'some'), only what is dead at the done and HELD nodes
 * is left out.
 *
 * Relative times. Every step after that only compares times and adds one to them, so two states
 * equal up to adding one constant to every time (clocks, request times, queue entries, the times
 * a message carries) have the same futures up to it. Each time is therefore kept as its distance
 * from M (the cap, which says where M is, stays in the context and out of the key: `contextKey`);
 * a token is its request time's, and goes. Once no node waits (cap 0), no time decides anything
 * more, and none is kept.
 *
 * Dead messages. A node p is deaf when it is HELD or done, its clock is at least the cap, and it
 * has heard every peer's request (lastSeen[q] >= T_q: q's messages to p carry growing times and
 * its REQUEST carries T_q, so on the FIFO link the REQUEST came). It stays deaf (it only goes from
 * HELD to done, its clock and `lastSeen` only grow, the cap only falls), and no REQUEST will
 * reach it again (each peer asks once). What can reach it is a REPLY or a RELEASE: the delivery
 * merges its clock (still at least the cap, so the key's clock stays the cap), raises `lastSeen`
 * and takes a request off the queue (both dead at a HELD or done node; the request is there, its
 * REQUEST came first), and sends and emits nothing. So every message to a deaf node is left out
 * of the key, all of a link's at once.
 *
 * Quiet nodes. A done node p whose unheard requests all come from WANTED nodes with T = M sends
 * nothing but a REPLY to each, stamped after merging T = M, so at M + 1 or later: the cap,
 * whatever its clock was. Its clock, and the time and `req` of the replies and releases coming to
 * it, are dead. At any HELD or done node a RELEASE's `req` is (its queue is).
 *
 * The context is the cap plus 2^16 times the sets of deaf, quiet and settled (HELD or done) nodes
 * (bit i for ids[i], 2^8 apart). The bench test checks, at n = 3, that the search keyed so reaches
 * every key the full search reaches.
 */
export function lamportCappedTimes(ids: readonly number[]): KeyAbstraction {
  const bit = (id: unknown) => 1 << ids.indexOf(id as number)
  return {
    context: (snapshot) => {
      const snaps = ids.map((id) => snapshot(id) as LamportSnapshot | undefined)
      let max = -1
      for (const s of snaps) {
        const r = s === undefined ? undefined : resourceOf<LamportResource>(s)
        if (r === undefined || !(r.time > 0) || r.queued > 0 || r.state === 'WAITING') return 'some'
        if (r.state === 'WANTED') max = Math.max(max, r.time)
      }
      const cap = max + 1
      const res = snaps.map((s) => resourceOf<LamportResource>(s)!)
      let deaf = 0
      let quiet = 0
      let settled = 0
      snaps.forEach((s, i) => {
        const r = res[i]!
        if (r.state === 'WANTED') return
        settled |= 1 << i
        const seen = new Map(s!.lastSeen)
        // The peers whose request this node has not heard yet.
        const unheard = ids.filter((q, j) => j !== i && (seen.get(q) ?? -1) < res[j]!.time)
        if (unheard.length === 0) {
          if (s!.clock >= cap) deaf |= 1 << i
        } else if (
          r.state === 'RELEASED' &&
          unheard.every((q) => {
            const w = res[ids.indexOf(q)]!
            return w.state === 'WANTED' && w.time === max
          })
        )
          quiet |= 1 << i
      })
      return cap + DEAF * (deaf + MASK * quiet + MASK * MASK * settled)
    },
    // The key keeps the sets, and whether any node waits, not the cap itself: every time counts
    // relative to M (below).
    contextKey: (context) =>
      typeof context === 'number'
        ? 2 * Math.floor(context / DEAF) + (context % DEAF > 0 ? 1 : 0)
        : context,
    node: (id, snapshot, _storage, context) => {
      const s = snapshot as LamportSnapshot
      const r = resourceOf<LamportResource>(s)
      if (r === undefined) return s
      if (typeof context !== 'number') {
        if (done(r) && r.queued === 0) return { ...doneResource(s), lastSeen: null }
        if (r.state !== 'HELD') return s
        const heldOnly = s.resources.map(([n, res]) => [n, { ...res, queue: null }])
        return { ...s, lastSeen: null, resources: heldOnly }
      }
      const { cap, deaf, quiet } = decode(context)
      // Once no node waits, no time decides anything: every one is dead.
      if (cap === 0) return nodeWithoutTimes(s)
      const base = cap - 1 // M: times count from it
      if (done(r) && r.queued === 0) {
        // A deaf or quiet done node's clock stamps nothing that counts any more.
        const dead = ((deaf | quiet) & bit(id)) !== 0
        return {
          ...doneResource(s),
          lastSeen: null,
          clock: dead ? null : Math.min(s.clock, cap) - base,
        }
      }
      const clock = Math.min(s.clock, cap) - base
      // The token is the request time's (and the rank's): it goes with the time.
      const relative = (res: LamportResource) => ({ ...res, time: res.time - base, token: null })
      if (r.state === 'HELD')
        return {
          ...s,
          lastSeen: null,
          clock,
          resources: s.resources.map(([n, res]) => [n, { ...relative(res), queue: null }]),
        }
      // WANTED. Whether each peer was heard past this request: all the rule reads, and it only
      // turns true.
      const mine = r.time
      const past = ([p, t]: [number, number]) => [p, t > mine || (t === mine && p > (id as number))]
      return {
        ...s,
        clock,
        lastSeen: s.lastSeen.map(past),
        resources: s.resources.map(([n, res]) => [
          n,
          { ...relative(res), queue: res.queue.map((e) => ({ ...e, time: e.time - base })) },
        ]),
      }
    },
    message: (msg, _from, to, context) => {
      if (typeof context !== 'number') return msg
      const { cap, deaf, quiet, settled } = decode(context)
      const at = bit(to)
      if ((deaf & at) !== 0) return undefined
      const m = msg as { type: string; time: number; req?: number }
      if (cap === 0) return { ...m, time: null, ...(m.req === undefined ? {} : { req: null }) }
      const base = cap - 1
      if (m.type === 'request') return { ...m, time: m.time - base }
      // At a quiet node a reply's or release's time and `req` are dead; at a HELD or done one, a
      // release's `req` (its queue is).
      if ((quiet & at) !== 0)
        return { ...m, time: null, ...(m.req === undefined ? {} : { req: null }) }
      const time = Math.min(m.time, cap) - base
      if (m.req === undefined) return { ...m, time }
      return { ...m, time, req: (settled & at) !== 0 ? null : m.req - base }
    },
  }
}

/** A node's key once no node waits: its state and its resources' states. */
function nodeWithoutTimes(s: LamportSnapshot) {
  const states = s.resources.map(([n, res]) => [n, { state: res.state }])
  return { ...s, clock: null, lastSeen: null, resources: states }
}

/** The context: the cap, plus DEAF times the sets of deaf, quiet and settled nodes (MASK apart). */
function decode(context: number) {
  const sets = Math.floor(context / DEAF)
  return {
    cap: context % DEAF,
    deaf: sets % MASK,
    quiet: Math.floor(sets / MASK) % MASK,
    settled: Math.floor(sets / (MASK * MASK)),
  }
}

const MASK = 2 ** 8

/** The context's unit for the set of deaf nodes: caps stay far below it. */
const DEAF = 2 ** 16

type LamportSnapshot = Snapshot<LamportResource> & { lastSeen: Array<[number, number]> }
