import { compareLamport, LamportClock } from '@sd/clocks'
import { type Ctx, type NodeId, type ProtocolFactory, sortNodeIds } from '@sd/transport'
import {
  DEFAULT_RESOURCE,
  type MutexRequest,
  resourceOf,
  type ViewRequest,
  type WithLockFeatures,
  withLockFeatures,
} from '../contract.js'
import { idMap, plainCopy, type Snapshot } from '../snapshot.js'
import { Arbiter, type RequestRef } from './arbiter.js'
import type { MaekawaEvent } from './events.js'
import {
  MAX_VIEW,
  type MaekawaMessage,
  parseMessage,
  type Unstamped,
  VIEW_UNIT,
} from './messages.js'
import { type MaekawaOptions, resolveOptions } from './options.js'
import { gridQuorum } from './quorum.js'
import { ViewBook } from './views.js'

/** What every handler and helper is handed (never kept). */
export type MaekawaCtx = Ctx<MaekawaMessage, MaekawaEvent>

/** The `view` field of a message of view `v` (none for view 0: the messages of old). */
const viewField = (v: number): { view?: number } => (v === 0 ? {} : { view: v })
const viewOf = (m: { view?: number }) => m.view ?? 0
/** Requests in the arbiter's order: (req, by), as Lamport timestamps. */
const byTimestamp = (a: RequestRef & { view: number }, b: RequestRef & { view: number }) =>
  a.view - b.view || compareLamport({ time: a.req, pid: a.by }, { time: b.req, pid: b.by })
/** A message about a request (every one but SYNC). */
type AboutMessage = Exclude<Unstamped, { type: 'sync' }>

/**
 * Maekawa's mutual exclusion with grid quorums (see `gridQuorum`), in the deadlock-free form:
 * a requester stamps REQUEST with its Lamport time and sends it to its quorum (itself included,
 * without a message); it enters with every member's LOCKED. A member votes for one request at a
 * time, queues the others by (time, id), answers FAILED to a request behind an earlier one, and
 * sends INQUIRE to its grantee when an earlier request arrives; a grantee that has not entered
 * and has had a FAILED gives the vote back (RELINQUISH). RELEASE frees the votes.
 * 3(K - 1) messages per entry without contention, K the quorum's size, up to about 5(K - 1)
 * under contention. Entries do not follow timestamp order (a late request can be overtaken),
 * so the fencing token is not the timestamp: each member remembers the highest token released
 * to it and sends it with LOCKED; the requester enters with the highest it got, plus one. Two
 * consecutive entries share a member that saw the first RELEASE before voting for the second.
 * A crashed quorum member blocks every requester whose quorum it is in, until a view without it.
 *
 * Views (`ViewRequest`): on installing view v a node rebuilds its quorum from v's members, drops
 * its vote and queue (votes of the old view count no more), asks again in v if it was waiting,
 * and sends SYNC (its view, the entry it holds) to v's members; it votes in v only once every
 * member synced and no declared entry is unreleased (`views.ts` has the rule and its proof).
 * Every message carries its view; one of another view is dropped (a request of a later view
 * waits). Precondition: a node left out of a view has crashed (stopped) before the view is
 * issued; a node restarted after it installed a view stays out until a later view names it.
 */
export function maekawa(
  options: MaekawaOptions = {},
): WithLockFeatures<ProtocolFactory<MaekawaMessage, MutexRequest | ViewRequest, MaekawaEvent>> {
  resolveOptions(options)
  const factory: ProtocolFactory<MaekawaMessage, MutexRequest | ViewRequest, MaekawaEvent> = (
    self,
  ) => {
    const clock = new LamportClock({ pid: self })
    let quorum: NodeId[] = [self]
    // Messages to self are handled after the current handler's own changes, in order.
    const local: Array<Unstamped> = []
    const post = (to: NodeId, msg: Unstamped, ctx: MaekawaCtx) => {
      if (to === self) local.push(msg)
      else ctx.send(to, { ...msg, time: clock.send() })
    }
    const book = new ViewBook([self])
    // The arbiter votes in the node's current view: its messages carry it.
    const arbiter = new Arbiter((to, msg, ctx) =>
      post(to, { ...msg, ...viewField(book.view) } as Unstamped, ctx),
    )
    /** Requests not yet handed to the arbiter: of a later view, or its vote is not open yet. */
    let deferred: Array<RequestRef & { view: number }> = []

    let state: 'idle' | 'wanting' | 'held' = 'idle'
    let req = 0
    let fence = 0
    let queued = 0
    let gotFailed = false
    const votes = new Map<NodeId, number>()
    /** Members that asked for their vote back during the current request. */
    const inquiries = new Set<NodeId>()
    /** The view of the current request (or entry), and the quorum it went to. */
    let reqView = 0
    let reqQuorum: NodeId[] = []

    const start = (ctx: MaekawaCtx) => {
      req = clock.tick()
      state = 'wanting'
      gotFailed = false
      votes.clear()
      inquiries.clear()
      reqView = book.view
      reqQuorum = quorum
      for (const m of quorum)
        post(m, { type: 'request', req, by: self, ...viewField(reqView) }, ctx)
    }

    const voteOpen = () => book.open(self, state === 'held' && reqView < book.view)

    /** Hands the waiting requests of this view to the arbiter, in timestamp order, once it may vote. */
    const flush = (ctx: MaekawaCtx) => {
      deferred = deferred.filter((d) => d.view >= book.view)
      if (!voteOpen()) return
      const now = deferred.filter((d) => d.view === book.view)
      deferred = deferred.filter((d) => d.view > book.view)
      now.sort(byTimestamp)
      for (const d of now) arbiter.request({ req: d.req, by: d.by }, ctx)
    }

    /**
     * Keeps a request for later: one per requester, its latest (a node asks again only after its
     * entry, which this vote was part of, or in a later view), so the list stays within the group.
     */
    const defer = (d: RequestRef & { view: number }) => {
      const prev = deferred.find((x) => x.by === d.by)
      if (prev !== undefined && (prev.view > d.view || (prev.view === d.view && prev.req >= d.req)))
        return
      deferred = [...deferred.filter((x) => x.by !== d.by), d]
    }

    const install = (v: ViewRequest, ctx: MaekawaCtx) => {
      const known = new Set<NodeId>([self, ...ctx.peers])
      const members = sortNodeIds(new Set(v.members.filter((m) => known.has(m))))
      book.view = v.view
      book.members = members
      book.detached = !members.includes(self)
      ctx.storage.set('view', v.view) // restarted, this node stays out until a later view
      quorum = book.detached ? [] : gridQuorum(members, self)
      arbiter.reset()
      ctx.emit({ type: 'view', view: v.view, members: [...members], quorum: [...quorum] })
      if (!book.detached) {
        const hold = state === 'held' ? fence : 0
        for (const m of members) {
          if (m !== self) ctx.send(m, { type: 'sync', view: v.view, hold, time: clock.send() })
        }
      }
      if (state === 'wanting') {
        // Votes of the old view count no more: ask again in this one (or wait for one).
        state = 'idle'
        queued++
      }
      if (state === 'idle' && queued > 0 && !book.detached) {
        queued--
        start(ctx)
      }
      flush(ctx)
    }

    const giveBack = (to: NodeId, ctx: MaekawaCtx) => {
      votes.delete(to)
      ctx.emit({ type: 'relinquished', to })
      post(to, { type: 'relinquish', req, by: self, ...viewField(reqView) }, ctx)
    }

    /** Gives back the votes asked for, once a FAILED shows this request cannot win yet. */
    const settle = (ctx: MaekawaCtx) => {
      if (state !== 'wanting' || !gotFailed) return
      for (const d of inquiries) {
        if (!votes.has(d)) continue // its LOCKED is still on the way (links may reorder)
        inquiries.delete(d)
        giveBack(d, ctx)
      }
    }

    /** The requester's side: answers about its own request. */
    const asRequester = (from: NodeId, m: AboutMessage, ctx: MaekawaCtx): string | undefined => {
      if (m.by !== self) return `${m.type} about another node's request`
      if (m.req < req || (m.req === req && state === 'idle')) return undefined // late, after the fact
      if (viewOf(m) !== reqView || reqView !== book.view) return undefined // of another view
      if (m.req > req) return `${m.type} about no request of mine`
      if (state === 'held') return undefined // RELEASE answers an INQUIRE; a late FAILED is moot
      if (m.type === 'locked') {
        votes.set(from, m.fence)
        if (votes.size < quorum.length) {
          settle(ctx)
          return undefined
        }
        state = 'held'
        inquiries.clear() // they get RELEASE at exit
        // Entries of a view come after every entry of older views (views.ts): tokens start above.
        fence = Math.max(...votes.values(), book.view * VIEW_UNIT) + 1
        ctx.emit({ type: 'acquired', resource: DEFAULT_RESOURCE, token: fence })
      } else if (m.type === 'failed') {
        gotFailed = true
        settle(ctx)
      } else if (m.type === 'inquire') {
        inquiries.add(from)
        settle(ctx)
      }
      return undefined
    }

    const handle = (from: NodeId, m: Unstamped, ctx: MaekawaCtx) => {
      let problem: string | undefined
      if (m.type === 'sync') {
        book.onSync(from, m.view, m.hold)
        return flush(ctx)
      }
      const ref = { req: m.req, by: m.by }
      const mine = viewOf(m) === book.view // a message of another view is dropped
      if (m.type === 'request') {
        if (m.by !== from) problem = 'request on behalf of another'
        else if (viewOf(m) > book.view || (mine && !voteOpen())) defer({ ...ref, view: viewOf(m) })
        else if (mine) arbiter.request(ref, ctx)
      } else if (m.type === 'relinquish') {
        if (m.by !== from || (mine && !arbiter.relinquish(ref, ctx)))
          problem = 'relinquish of no vote of mine'
      } else if (m.type === 'release') {
        if (m.by === from) book.onRelease(m.by, m.fence)
        if (m.by !== from || (mine && !arbiter.release(ref, m.fence, ctx) && book.view === 0)) {
          problem = 'release of no vote of mine'
        }
        flush(ctx)
      } else problem = asRequester(from, m, ctx)
      if (problem !== undefined) ctx.emit({ type: 'ignored', from, reason: problem })
    }

    const drain = (ctx: MaekawaCtx) => {
      for (let m = local.shift(); m !== undefined; m = local.shift()) handle(self, m, ctx)
    }

    const onView = (v: ViewRequest, ctx: MaekawaCtx) => {
      const ok = Number.isSafeInteger(v.view) && v.view <= MAX_VIEW && Array.isArray(v.members)
      if (!ok) return ctx.emit({ type: 'ignored', from: self, reason: 'malformed view' })
      if (v.view <= book.view) {
        return ctx.emit({ type: 'ignored', from: self, reason: `view ${v.view} not above mine` })
      }
      install(v, ctx)
      drain(ctx)
    }

    return {
      snapshot: () => ({
        clock: clock.time,
        // Sent to in this order, each message stamped one later: the order counts.
        quorum: [...quorum],
        state,
        req,
        reqView,
        reqQuorum: [...reqQuorum], // released in this order
        views: book.snapshot(),
        deferred: [...deferred] // handed over in timestamp order: kept sorted
          .sort(byTimestamp)
          .map((d) => ({ req: d.req, by: d.by, view: d.view })),
        fence,
        queued,
        gotFailed,
        votes: idMap(votes, (f) => f),
        // Given back in this order (each RELINQUISH stamped one later): the order counts.
        inquiries: [...inquiries],
        local: local.map(plainCopy), // drained by every handler: empty between steps
        arbiter: arbiter.snapshot(),
      }),

      restore(snapshot) {
        const s = snapshot as {
          clock: number
          quorum: NodeId[]
          state: typeof state
          req: number
          reqView: number
          reqQuorum: NodeId[]
          views: Snapshot
          deferred: Array<RequestRef & { view: number }>
          fence: number
          queued: number
          gotFailed: boolean
          votes: Array<[NodeId, number]>
          inquiries: NodeId[]
          local: Unstamped[]
          arbiter: Snapshot
        }
        clock.restore(s.clock)
        quorum = [...s.quorum]
        state = s.state
        req = s.req
        reqView = s.reqView
        reqQuorum = [...s.reqQuorum]
        book.restore(s.views)
        deferred = s.deferred.map((d) => ({ req: d.req, by: d.by, view: d.view }))
        fence = s.fence
        queued = s.queued
        gotFailed = s.gotFailed
        votes.clear()
        for (const [id, f] of s.votes) votes.set(id, f)
        inquiries.clear()
        for (const id of s.inquiries) inquiries.add(id)
        local.length = 0
        local.push(...s.local.map((m) => ({ ...m })))
        arbiter.restore(s.arbiter)
      },

      start(ctx) {
        book.members = sortNodeIds([self, ...ctx.peers])
        const stored = ctx.storage.get('view')
        if (typeof stored === 'number') {
          // Restarted after a view: its votes are forgotten, so it waits to be named again.
          book.view = stored
          book.detached = true
          quorum = []
        } else quorum = gridQuorum(book.members, self)
        ctx.emit({ type: 'quorum', members: [...quorum] })
      },

      onRequest(r, ctx) {
        // Checked, not trusted: requests come from application code, typed or not.
        const loose: { type?: unknown } | null | undefined = r
        const kind = loose?.type
        if (kind === 'view') return onView(r as ViewRequest, ctx)
        if (kind !== 'acquire' && kind !== 'release') {
          return ctx.emit({ type: 'ignored', from: self, reason: 'unknown request' })
        }
        if (r.type === 'view') return // narrowed above
        if (resourceOf(r) !== DEFAULT_RESOURCE) {
          return ctx.emit({
            type: 'ignored',
            from: self,
            reason: `only ${DEFAULT_RESOURCE} is managed`,
          })
        }
        if (kind === 'acquire') {
          if (state === 'idle' && !book.detached) start(ctx)
          else queued++
        } else {
          if (state !== 'held')
            return ctx.emit({ type: 'ignored', from: self, reason: 'release outside the section' })
          state = 'idle'
          ctx.emit({ type: 'released', resource: DEFAULT_RESOURCE, token: fence })
          // An entry of an older view was declared to the members of this one: they hear too.
          const to =
            reqView === book.view
              ? reqQuorum
              : sortNodeIds(new Set([...reqQuorum, ...book.members]))
          const release = { type: 'release', req, by: self, fence, ...viewField(reqView) } as const
          for (const m of to) post(m, release, ctx)
          flush(ctx)
          if (queued > 0 && !book.detached) {
            queued--
            start(ctx)
          }
        }
        drain(ctx)
      },

      onMessage(from, raw, ctx) {
        const m = parseMessage(raw)
        if (typeof m === 'string') return ctx.emit({ type: 'ignored', from, reason: m })
        if (from === self || !ctx.peers.includes(from)) {
          return ctx.emit({ type: 'ignored', from, reason: 'not a member' })
        }
        clock.receive(m.time)
        handle(from, m, ctx)
        drain(ctx)
      },
    }
  }
  return withLockFeatures(factory, ['views'])
}
