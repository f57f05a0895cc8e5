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
import type { NodeId } from '@sd/transport'
import type { AbstractionContext, KeyAbstraction, Rename } from '@sd/transport/explore'

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
 * and once true it stays true (queues and a RELEASE's `req`: below).
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
 * whatever its clock was. Its clock, and the time of the replies and releases coming to it, are
 * dead.
 *
 * Queues and requests. A WANTED node q enters when no queued request is ahead of its own, and a
 * queue changes only by a REQUEST (one per peer, queued by (T, id)) and by its sender's RELEASE
 * (which takes that one request off: on the FIFO link the REQUEST came first). So q's queue counts
 * as the set of its peers queued, each with whether its request is ahead of q's, and a RELEASE's
 * `req` is dead everywhere. A HELD node's request time then only goes into its RELEASE's `req`
 * and its token: dead too.
 *
 * Renaming (`renamings`). What a node does depends on ids only where it compares (t, p) with a
 * request (T_q, q): a REQUEST queued against q's own, and a time heard from p against q's request.
 * Every comparison already made is kept as its outcome (the queue's and `lastSeen`'s flags); one
 * still to come is a message in flight to a WANTED node, or one to be sent. The first is kept with
 * its outcome (`passes`, taken with the concrete ids). Of the second, a done node only sends
 * REPLYs, stamped past the request they answer, so they pass whatever the ids, and a node whose
 * clock is at T_q or past it stamps everything past T_q. Only a WANTED or HELD node p whose clock
 * is below T_q, at a q that has not heard p past its request, may yet send q a RELEASE stamped
 * T_q, where the ids decide. So a renaming that keeps the ids of each such pair in order keeps
 * every step. The key is the least over the allowed orders that list the nodes' signatures least
 * (what the key keeps of each, renaming aside: WANTED, HELD or done; deaf or quiet; its clock; a
 * WANTED node's request time), a choice a state and its renamings share (`namingOrders`).
 * Renamed, each `lastSeen` and queue is keyed by its peers' new names, sorted, and a view's
 * members renamed.
 *
 * The context carries the cap, the sets of deaf and quiet nodes (bit i for ids[i]), the WANTED
 * nodes' request times and the orders the nodes may be named in; the key keeps only whether a
 * node waits (`contextKey`), each node's entry saying whether it is deaf or quiet. The bench test
 * checks, at n = 3, that the search keyed so reaches every key the full search reaches: it caught
 * an earlier renaming, which named the nodes whose requests could still be compared by their
 * (T, id) and the others by their clocks (29 keys missed).
 */
export function lamportCappedTimes(
  ids: readonly number[],
  options: { rename?: boolean } = {},
): KeyAbstraction {
  const bit = (id: unknown) => 1 << ids.indexOf(id as number)
  const stamped = new StampedContexts(ids, options.rename ?? true)
  return {
    context: (snapshot) => {
      // Loops, not maps and filters: this runs state after state.
      const n = ids.length
      const snaps: LamportSnapshot[] = []
      const res: LamportResource[] = []
      let max = -1
      for (const id of ids) {
        const s = snapshot(id) as LamportSnapshot | undefined
        const r = s === undefined ? undefined : resourceOf<LamportResource>(s)
        if (r === undefined || !(r.time > 0) || r.queued > 0 || r.state === 'WAITING') return 'some'
        if (r.state === 'WANTED' && r.time > max) max = r.time
        snaps.push(s!)
        res.push(r)
      }
      // A renaming reads the launch group's view; under another one the state is keyed in full.
      for (const s of snaps) if (!launchView(s.view)) return undefined
      const cap = max + 1
      let deaf = 0
      let quiet = 0
      for (let i = 0; i < n; i++) {
        const r = res[i]!
        if (r.state === 'WANTED') continue
        // The peers whose request this node has not heard yet, and whether all are WANTED at M.
        let unheard = 0
        let allAtMax = true
        for (let j = 0; j < n; j++) {
          if (j === i || heardFrom(snaps[i]!, ids[j]!) >= res[j]!.time) continue
          unheard++
          if (res[j]!.state !== 'WANTED' || res[j]!.time !== max) allAtMax = false
        }
        if (unheard === 0) {
          if (snaps[i]!.clock >= cap) deaf |= 1 << i
        } else if (r.state === 'RELEASED' && allAtMax) quiet |= 1 << i
      }
      let times = ''
      for (let i = 0; i < n; i++)
        times += `${i > 0 ? ',' : ''}${res[i]!.state === 'WANTED' ? res[i]!.time : -1}`
      const orders = stamped.renames ? namingOrders(ids, res, snaps, cap, deaf | quiet, deaf) : ''
      return `${cap}:${deaf}:${quiet}:${times}:${orders}`
    },
    // The key keeps whether any node waits, not the cap nor the times: every time counts relative
    // to M (below), and each node's entry says whether it is deaf or quiet.
    contextKey: (context) => (context === 'some' ? context : stamped.of(context).cap > 0),
    renamings: (context) => (context === 'some' ? undefined : stamped.of(context).renamings),
    node: (id, snapshot, _storage, context, rename) => {
      const s = snapshot as LamportSnapshot
      const r = resourceOf<LamportResource>(s)
      if (r === undefined) return s
      if (context === 'some') {
        if (done(r) && r.queued === 0) return { ...doneResource(s), lastSeen: null }
        if (r.state !== 'HELD') return s
        const heldOnly = s.resources.map(([n, res]) => [n, { ...res, queue: null }])
        return { ...s, lastSeen: null, resources: heldOnly }
      }
      const c = stamped.of(context)
      const deaf = (c.deaf & bit(id)) !== 0
      const quiet = (c.quiet & bit(id)) !== 0
      return stampedNode(s, r, id as number, c.cap, deaf, quiet, rename)
    },
    message: (msg, from, to, context) => {
      if (context === 'some') return msg
      const c = stamped.of(context)
      const at = bit(to)
      if ((c.deaf & at) !== 0) return undefined
      const m = msg as LamportMessage
      // A RELEASE's `req` only names the request it takes off a queue: one per sender.
      if (c.cap === 0) return flatMessage(m, null, null)
      const base = c.cap - 1
      // At a WANTED receiver, whether the time passes its request, as the concrete ids decide it.
      const mine = c.times[ids.indexOf(to as number)]!
      const past = mine >= 0 ? passes(m.time, from as number, mine, to as number) : null
      if (m.type === 'request') return flatMessage(m, m.time - base, past)
      // At a quiet node a reply's or release's time is dead.
      if ((c.quiet & at) !== 0) return flatMessage(m, null, null)
      return flatMessage(m, Math.min(m.time, c.cap) - base, past)
    },
  }
}

type LamportMessage = { type: string; resource?: string; time: number; req?: number; view?: number }

/**
 * A message as the key keeps it once every request is stamped: a flat list (hashed far faster
 * than an object), the same facts as the object it stands for: its type, resource, time as kept,
 * whether it passes its receiver's request, whether it names a request (`req`, dead), its view.
 * Anything else a message may carry (a view change's fields) keeps the object.
 */
function flatMessage(m: LamportMessage, time: number | null, past: boolean | null): unknown {
  if (m.type === 'view') return { ...m, time, passes: past }
  return [m.type, m.resource ?? null, time, past, m.req === undefined ? 0 : 1, m.view ?? -1]
}

/**
 * A node's key once every request is stamped (see `lamportCappedTimes`), as a flat list: hashed
 * far faster than the object it stands for, and made without copying the snapshot. It keeps what
 * that object kept, each list led by its length so that no two states share a list: what the node
 * is (0 done, 1 HELD, 2 WANTED, 3 any state once no node waits), whether it is deaf or quiet, its
 * clock as kept, its view renamed, then per resource its name and state and the parts kept (a
 * WANTED node's request time, queued count, peers queued with whether each is ahead, and its
 * `lastSeen` as whether each peer was heard past its request).
 */
function stampedNode(
  s: LamportSnapshot,
  r: LamportResource,
  id: number,
  cap: number,
  deaf: boolean,
  quiet: boolean,
  rename: Rename,
): unknown[] {
  const base = cap - 1 // M: times count from it
  const clock = Math.min(s.clock, cap) - base
  // Once no node waits, no time decides anything: every one is dead.
  const kind = cap === 0 ? 3 : done(r) && r.queued === 0 ? 0 : r.state === 'HELD' ? 1 : 2
  // A deaf or quiet done node's clock stamps nothing that counts any more.
  const kept = kind === 3 || (kind === 0 && (deaf || quiet)) ? null : clock
  const out: unknown[] = [kind, deaf, quiet, kept]
  // The rank (an id's) only makes the token, which goes with the request time below.
  pushView(out, s.view, rename)
  out.push(s.resources.length)
  const mine = r.time
  for (const [name, res] of s.resources) {
    out.push(name, kind === 0 ? 'RELEASED' : res.state)
    if (kind !== 2) continue
    // WANTED: whether each peer was heard past this request (all the entry rule reads, and it
    // only turns true), and which queued requests are ahead of it (the rule's other half).
    out.push(res.time - base, res.queued, res.queue.length)
    const from = out.length
    for (const e of res.queue)
      insertPair(out, from, rename(e.pid) as number, !passes(e.time, e.pid, mine, id))
  }
  if (kind === 2) {
    out.push(s.lastSeen.length)
    const from = out.length
    for (const [p, t] of s.lastSeen)
      insertPair(out, from, rename(p) as number, passes(t, p, mine, id))
  } else if (kind === 1) for (const [, res] of s.resources) out.push(res.queued)
  return out
}

/**
 * Appends the pair (p, b) to the flat pairs from `out[from]` on, kept ascending by renamed id p:
 * an insertion, in place (a node has a few peers, and this runs state after state).
 */
function insertPair(out: unknown[], from: number, p: number, b: boolean): void {
  let i = out.length
  out.push(p, b)
  while (i > from && (out[i - 2] as number) > p) {
    out[i] = out[i - 2]
    out[i + 1] = out[i - 1]
    i -= 2
  }
  out[i] = p
  out[i + 1] = b
}

/** A launch view's fields, its ids renamed (the renaming reads no other view). */
function pushView(out: unknown[], view: unknown, rename: Rename): void {
  const v = view as { view: number; inView: boolean; peers: number[]; unheard: number[] }
  out.push(v.view, v.inView)
  pushRenamedIds(out, v.peers, rename)
  pushRenamedIds(out, v.unheard, rename)
}

// Helpers at module level, not closures made per call: run under tsx (the benchmarks), every
// named closure is wrapped by its keep-names helper each time it is made, a tenth of this search.

/** Appends how many ids `list` has, then the ids renamed, ascending (insertion, in place). */
function pushRenamedIds(out: unknown[], list: readonly number[], rename: Rename): void {
  out.push(list.length)
  const from = out.length
  for (const id of list) {
    const named = rename(id) as number
    let i = out.length
    out.push(named)
    while (i > from && (out[i - 1] as number) > named) {
      out[i] = out[i - 1]
      i--
    }
    out[i] = named
  }
}

/** A node's kind as the naming order compares it: WANTED, HELD, then done. */
function kindOf(r: LamportResource): number {
  return r.state === 'WANTED' ? 0 : r.state === 'HELD' ? 1 : 2
}

/** Whether a time `t` heard from `p` passes `q`'s request at `mine`: (t, p) > (mine, q). */
const passes = (t: number, p: number, mine: number, q: number) => t > mine || (t === mine && p > q)

/** The launch group's view (view 0, nothing buffered): the only one the renaming reads. */
function launchView(view: unknown): boolean {
  const v = view as { view: number; buffered: unknown[] }
  return v.view === 0 && v.buffered.length === 0
}

/**
 * The stamped contexts, read once each: the cap, the sets of deaf and quiet nodes (bit i for
 * ids[i]), the WANTED nodes' request times (-1 for the others), and the orders the key names the
 * nodes in (`namingOrders`), whose renamings it is the least over.
 */
class StampedContexts {
  private readonly read = new Map<string, Stamped>()
  constructor(
    private readonly ids: readonly number[],
    readonly renames: boolean,
  ) {}

  of(context: AbstractionContext): Stamped {
    const text = context as string
    let c = this.read.get(text)
    if (c !== undefined) return c
    if (this.read.size >= 100_000) this.read.clear()
    const [cap, deaf, quiet, times, orders] = text.split(':')
    c = {
      cap: Number(cap),
      deaf: Number(deaf),
      quiet: Number(quiet),
      times: times!.split(',').map(Number),
      renamings: undefined,
    }
    if (this.renames) c.renamings = renamingsOf(this.ids, orders!)
    this.read.set(text, c)
    return c
  }
}

interface Stamped {
  cap: number
  deaf: number
  quiet: number
  /** Each WANTED node's request time, -1 for the others, in `ids` order. */
  times: number[]
  renamings: Rename[] | undefined
}

/**
 * The orders the key may name the nodes in (the k-th named ids[k]), as node indices, '|' between
 * orders. Allowed: every order that keeps the ids of each pair (p, q) in order where q waits, has
 * not heard p past its request, and p is WANTED or HELD with its clock below q's request time (p
 * may yet send q a RELEASE stamped T_q, and then the ids decide). Of those, the ones that list the
 * nodes' signatures least (what the key keeps of each, renaming aside: WANTED, HELD or done; deaf
 * or quiet; its clock up to the cap; a WANTED node's request time), so that a state and its
 * renamings are given the same orders.
 */
function namingOrders(
  ids: readonly number[],
  res: LamportResource[],
  snaps: LamportSnapshot[],
  cap: number,
  deadClock: number,
  deaf: number,
): string {
  const n = ids.length
  // One number per node, compared as the list [kind, deaf or quiet, clock, request time] (each
  // below 2^20: times count messages): loops and no lists, this runs state after state.
  const signature = scratchSignature
  for (let i = 0; i < n; i++) {
    const r = res[i]!
    const k = kindOf(r)
    const dq = (deaf & (1 << i)) !== 0 ? 2 : (deadClock & (1 << i)) !== 0 ? 1 : 0
    const clock = cap === 0 || (k === 2 && dq > 0) ? 0 : Math.min(snaps[i]!.clock, cap)
    signature[i] = ((k * 4 + dq) * 2 ** 20 + clock) * 2 ** 20 + (k === 0 ? r.time : 0)
  }
  const pairs = scratchPairs
  pairs.length = 0
  for (let q = 0; q < n; q++) {
    if (res[q]!.state !== 'WANTED') continue
    for (let p = 0; p < n; p++) {
      if (p === q || kindOf(res[p]!) === 2) continue
      if (passes(heardFrom(snaps[q]!, ids[p]!), ids[p]!, res[q]!.time, ids[q]!)) continue
      if (snaps[p]!.clock < res[q]!.time) pairs.push(p, q)
    }
  }
  const { orders, at } = orderings(n)
  let best = ''
  let bestOrder = -1
  for (let o = 0; o < orders.length; o++) {
    const order = orders[o]!
    const pos = at[o]!
    let allowed = true
    for (let j = 0; j < pairs.length && allowed; j += 2) {
      const p = pairs[j]!
      const q = pairs[j + 1]!
      allowed = pos[p]! < pos[q]! === ids[p]! < ids[q]!
    }
    if (!allowed) continue
    let c = bestOrder < 0 ? -1 : 0
    for (let k = 0; k < n && c === 0; k++)
      c = signature[order[k]!]! - signature[orders[bestOrder]![k]!]!
    if (c < 0) {
      bestOrder = o
      best = order.join(',')
    } else if (c === 0) best += `|${order.join(',')}`
  }
  return best
}

const scratchSignature: number[] = []
const scratchPairs: number[] = []

/** Every order of 0..n-1, and where each puts each node, made once per n. */
function orderings(n: number): { orders: number[][]; at: number[][] } {
  let made = ORDERINGS.get(n)
  if (made === undefined) {
    const orders = permutations(Array.from({ length: n }, (_, i) => i))
    const at = orders.map((order) => {
      const pos = new Array<number>(n)
      order.forEach((i, k) => {
        pos[i] = k
      })
      return pos
    })
    made = { orders, at }
    ORDERINGS.set(n, made)
  }
  return made
}
const ORDERINGS = new Map<number, { orders: number[][]; at: number[][] }>()

/** The renamings of `namingOrders`: in each order, the k-th node is named ids[k]. */
function renamingsOf(ids: readonly number[], orders: string): Rename[] {
  return orders.split('|').map((order) => {
    const names = new Map(order.split(',').map((i, k) => [ids[Number(i)]!, ids[k]!]))
    return (id: NodeId) => names.get(id as number) ?? id
  })
}

/** The latest time a node heard from `peer` (-1: nothing yet). */
function heardFrom(s: LamportSnapshot, peer: number): number {
  for (const [p, t] of s.lastSeen) if (p === peer) return t
  return -1
}

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]]
  return items.flatMap((item, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
  )
}

type LamportSnapshot = Snapshot<LamportResource> & {
  lastSeen: Array<[number, number]>
  view: unknown
}
