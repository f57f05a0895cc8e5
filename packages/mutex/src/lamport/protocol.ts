import { compareLamport } from '@sd/clocks'
import type { Ctx, NodeId, Protocol, ProtocolFactory } from '@sd/transport'
import {
  type MutexRequest,
  type ViewRequest,
  type WithLockFeatures,
  withLockFeatures,
} from '../contract.js'
import { idMap, nameList } from '../snapshot.js'
import { announceRequest } from './announce.js'
import type { LamportMutexEvent } from './events.js'
import { handleLocalRequest } from './local-request.js'
import { type LamportMutexMessage, parseMessage } from './messages.js'
import { type LamportMutexOptions, resolveOptions } from './options.js'
import { admitViewed } from './peer-message.js'
import { RequestQueue } from './queue.js'
import { fencingToken, nodeClock, rankOf } from './timestamp.js'
import { GroupView, parseViewRequest, type ViewInstall } from './view.js'

/** What every handler and helper is handed (never kept). */
export type LamportMutexCtx = Ctx<LamportMutexMessage, LamportMutexEvent>

/** One resource's state at one node. */
interface Resource {
  /** WAITING: wanted, the request not yet stamped (a new view's members not all heard from). */
  state: 'RELEASED' | 'WAITING' | 'WANTED' | 'HELD'
  /** Time of the node's current request (WANTED or HELD). */
  time: number
  /** The fencing token of that request (its time and the node's rank in the view it was made in). */
  token: number
  /** Every known request on this resource, own included, in (T, pid) order. */
  queue: RequestQueue
  /** Local acquires made while this node already wanted or held the resource. */
  queued: number
}

/** What `snapshot()` gives and `restore()` takes. */
interface LamportMutexSnapshot {
  clock: number
  rank: number
  view: unknown
  lastSeen: Array<[NodeId, number]>
  resources: Array<
    [string, Omit<Resource, 'queue'> & { queue: Array<{ time: number; pid: NodeId }> }]
  >
}

/**
 * Lamport's mutual exclusion (1978): a request is broadcast and queued by everyone, each receiver
 * acknowledges it with a timestamped REPLY; a node enters when its request heads its own queue
 * and it has heard from every other node a message stamped later than its request; a RELEASE
 * broadcast takes the request off every queue. 3(n - 1) messages per entry.
 *
 * Requires FIFO links (the simulator's default): "a later-stamped message from p" proves that
 * every earlier request of p is already queued only if p's messages arrive in the order sent.
 * A crashed node blocks every other requester (its REPLY or its RELEASE never comes). Restarts are
 * not supported: the new instance has forgotten the queue and the requests dropped while it was
 * down, so it could enter past an earlier request; keep a restarted node out of the group.
 *
 * Views ('views'): the rules of `GroupView` and of `ricartAgrawala` (messages carry the view
 * number; a newer view's wait, an older view's are dropped; a new request is stamped only once
 * every member said it installed the view). On installing view v a node starts its queues and
 * what it heard afresh: every member re-sends in v what still counts. A request that waits is
 * made again (stamped anew); a held one is sent again with its own time, before the node's `view`
 * message, so with FIFO links every member has it queued before it may stamp a request of its own
 * in v, and no member of v enters before its RELEASE. Removed members' requests go with the old
 * queue. The precondition is the same: a removed node has crashed or left (released, asks no
 * more); removing a live holder breaks mutual exclusion.
 */
export function lamportMutex(
  options: LamportMutexOptions = {},
): WithLockFeatures<
  ProtocolFactory<LamportMutexMessage, MutexRequest | ViewRequest, LamportMutexEvent>
> {
  const settings = resolveOptions(options)
  const factory: ProtocolFactory<
    LamportMutexMessage,
    MutexRequest | ViewRequest,
    LamportMutexEvent
  > = (self) => {
    const clock = nodeClock(self, settings.initialClock)
    const resources = new Map<string, Resource>()
    /** The latest Lamport time heard from each peer (on any message and resource). */
    const lastSeen = new Map<NodeId, number>()
    let rank = 0
    const group = new GroupView<LamportMutexMessage>()

    const stateOf = (name: string): Resource => {
      let r = resources.get(name)
      if (r === undefined) {
        r = { state: 'RELEASED', time: 0, token: 0, queue: new RequestQueue(), queued: 0 }
        resources.set(name, r)
      }
      return r
    }

    /** To every member: the launch group's broadcast in view 0, as it always was. */
    const toAll = (msg: LamportMutexMessage, ctx: LamportMutexCtx) => {
      if (group.view === 0) ctx.broadcast(msg)
      else for (const peer of group.peers) ctx.send(peer, msg)
    }

    const mayEnter = (r: Resource): boolean => {
      if (r.state !== 'WANTED') return false
      const head = r.queue.head
      if (head === undefined || head.pid !== self || head.time !== r.time) return false
      const mine = { time: r.time, pid: self }
      return [...group.peers].every(
        (p) => compareLamport({ time: lastSeen.get(p) ?? -1, pid: p }, mine) > 0,
      )
    }

    const enterWherePossible = (ctx: LamportMutexCtx) => {
      for (const [name, r] of resources) {
        if (!mayEnter(r)) continue
        r.state = 'HELD'
        ctx.emit({ type: 'acquired', resource: name, token: r.token })
      }
    }

    const request = (name: string, r: Resource, ctx: LamportMutexCtx) => {
      if (!group.ready) {
        r.state = 'WAITING' // stamped once every member of the new view was heard from
        return
      }
      r.state = 'WANTED'
      r.time = clock.send() // one broadcast event: every copy carries the same T
      r.token = fencingToken(r.time, rank)
      r.queue.add({ time: r.time, pid: self })
      announceRequest(
        name,
        r.time,
        rank,
        ctx,
        {},
        {
          ...group.stamp(),
          to: group.view > 0 ? [...group.peers] : undefined,
        },
      )
      enterWherePossible(ctx)
    }

    const release = (name: string, r: Resource, ctx: LamportMutexCtx) => {
      r.state = 'RELEASED'
      r.queue.remove({ time: r.time, pid: self })
      ctx.emit({ type: 'released', resource: name, token: r.token })
      toAll(
        { type: 'release', resource: name, time: clock.send(), req: r.time, ...group.stamp() },
        ctx,
      )
      if (r.queued > 0) {
        r.queued--
        request(name, r, ctx)
      }
    }

    /** Applies a peer's message to the queues; returns why it was refused, if it was. */
    const apply = (
      from: NodeId,
      m: LamportMutexMessage,
      ctx: LamportMutexCtx,
    ): string | undefined => {
      if (m.type === 'view') {
        if (m.ask) ctx.send(from, { type: 'view', view: group.view, time: clock.send() })
        return undefined
      }
      const r = stateOf(m.resource)
      if (m.type === 'request') {
        if (r.queue.hasFrom(from)) return `second request from ${String(from)} before its release`
        r.queue.add({ time: m.time, pid: from })
        ctx.send(from, {
          type: 'reply',
          resource: m.resource,
          time: clock.send(),
          ...group.stamp(),
        })
      } else if (m.type === 'release') {
        if (!r.queue.remove({ time: m.req, pid: from }))
          return `release of a request not queued (${m.req})`
      }
      return undefined
    }

    /** A peer's message of this node's view. */
    const handle = (from: NodeId, m: LamportMutexMessage, ctx: LamportMutexCtx) => {
      clock.receive(m.time)
      // With FIFO links a peer's times only grow; max() keeps a stray old one from going back.
      lastSeen.set(from, Math.max(lastSeen.get(from) ?? -1, m.time))
      const first = group.view > 0 && group.heard(from) // anything stamped in the view says so
      const refused = apply(from, m, ctx)
      if (refused !== undefined) ctx.emit({ type: 'ignored', from, reason: refused })
      if (first) requestWaiting(ctx)
      enterWherePossible(ctx)
    }

    /** Requests that waited for the view's members are stamped and sent, in resource order. */
    const requestWaiting = (ctx: LamportMutexCtx) => {
      if (!group.ready) return
      for (const [name, r] of resources) {
        if (r.state === 'WAITING') request(name, r, ctx)
      }
    }

    const installView = (next: ViewInstall, ctx: LamportMutexCtx) => {
      const due = group.install(next)
      rank = rankOf(self, next.peers)
      lastSeen.clear()
      for (const [name, r] of resources) {
        r.queue = new RequestQueue() // every member re-sends in this view what still counts
        if (r.state === 'HELD') {
          r.queue.add({ time: r.time, pid: self })
          // Before the `view` message: queued everywhere before anyone may stamp in this view.
          if (next.self)
            toAll({ type: 'request', resource: name, time: r.time, view: next.view }, ctx)
        } else if (r.state !== 'RELEASED') {
          r.state = next.self ? 'WAITING' : 'RELEASED'
          if (!next.self) {
            r.queued = 0
            ctx.emit({
              type: 'ignored',
              from: self,
              reason: `acquire of ${name}: not in view ${next.view}`,
            })
          }
        }
      }
      if (next.self) {
        for (const peer of group.peers) {
          ctx.send(peer, { type: 'view', view: next.view, time: clock.send(), ask: true })
        }
      }
      for (const { from, msg } of due) handle(from, msg, ctx)
      requestWaiting(ctx)
      enterWherePossible(ctx)
    }

    const protocol: Protocol<LamportMutexMessage, MutexRequest | ViewRequest, LamportMutexEvent> = {
      snapshot: () => ({
        clock: clock.time,
        rank,
        view: group.snapshot(),
        lastSeen: idMap(lastSeen, (time) => time),
        // In creation order: a step that lets several resources in emits `acquired` in this order.
        resources: nameList(resources, (r) => ({
          state: r.state,
          time: r.time,
          token: r.token,
          queue: r.queue.snapshot(),
          queued: r.queued,
        })),
      }),
      // Every list and object above is made here: a checkpoint keeps the snapshot as it is.
      snapshotCopies: true,
      // It copies what it keeps (the queue's entries, the view's lists): the explorer can hand it
      // its saved snapshot instead of a copy per restore.
      restoreCopies: true,

      restore(snapshot) {
        const s = snapshot as LamportMutexSnapshot
        clock.restore(s.clock)
        rank = s.rank
        group.restore(s.view as Parameters<typeof group.restore>[0])
        lastSeen.clear()
        for (const [peer, time] of s.lastSeen) lastSeen.set(peer, time)
        resources.clear()
        for (const [name, r] of s.resources) {
          const queue = new RequestQueue()
          for (const entry of r.queue) queue.add({ time: entry.time, pid: entry.pid })
          resources.set(name, {
            state: r.state,
            time: r.time,
            token: r.token,
            queue,
            queued: r.queued,
          })
        }
      },

      start(ctx) {
        rank = rankOf(self, ctx.peers)
        group.start(ctx.peers)
      },

      onRequest(req, ctx) {
        const view = parseViewRequest(req, self)
        if (view === undefined) {
          if (!group.inView && (req as { type?: unknown }).type === 'acquire') {
            ctx.emit({ type: 'ignored', from: self, reason: `not in view ${group.view}` })
            return
          }
          handleLocalRequest(req, self, ctx, stateOf, request, release)
        } else if (typeof view === 'string') {
          ctx.emit({ type: 'ignored', from: self, reason: view })
        } else if (view.view <= group.view) {
          ctx.emit({
            type: 'ignored',
            from: self,
            reason: `view ${view.view} is not above view ${group.view}`,
          })
        } else installView(view, ctx)
      },

      onMessage(from, msg, ctx) {
        const m = admitViewed(from, msg, group, parseMessage, ctx)
        if (m !== undefined) handle(from, m, ctx)
      },
    }
    return protocol
  }
  return withLockFeatures(factory, ['views'])
}
