import { compareLamport } from '@sd/clocks'
import type { Ctx, NodeId, Protocol, ProtocolFactory } from '@sd/transport'
import type { MutexRequest } from '../contract.js'
import { idMap, nameList } from '../snapshot.js'
import { announceRequest } from './announce.js'
import type { LamportMutexEvent } from './events.js'
import { handleLocalRequest } from './local-request.js'
import { type LamportMutexMessage, parseMessage } from './messages.js'
import { type LamportMutexOptions, resolveOptions } from './options.js'
import { admitMessage } from './peer-message.js'
import { RequestQueue } from './queue.js'
import { fencingToken, nodeClock, rankOf } from './timestamp.js'

/** What every handler and helper is handed (never kept). */
export type LamportMutexCtx = Ctx<LamportMutexMessage, LamportMutexEvent>

/** One resource's state at one node. */
interface Resource {
  state: 'RELEASED' | 'WANTED' | 'HELD'
  /** Time of the node's current request (WANTED or HELD). */
  time: number
  /** Every known request on this resource, own included, in (T, pid) order. */
  queue: RequestQueue
  /** Local acquires made while this node already wanted or held the resource. */
  queued: number
}

/** What `snapshot()` gives and `restore()` takes. */
interface LamportMutexSnapshot {
  clock: number
  rank: number
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
 */
export function lamportMutex(
  options: LamportMutexOptions = {},
): ProtocolFactory<LamportMutexMessage, MutexRequest, LamportMutexEvent> {
  const settings = resolveOptions(options)
  return (self) => {
    const clock = nodeClock(self, settings.initialClock)
    const resources = new Map<string, Resource>()
    /** The latest Lamport time heard from each peer (on any message and resource). */
    const lastSeen = new Map<NodeId, number>()
    let rank = 0

    const stateOf = (name: string): Resource => {
      let r = resources.get(name)
      if (r === undefined) {
        r = { state: 'RELEASED', time: 0, queue: new RequestQueue(), queued: 0 }
        resources.set(name, r)
      }
      return r
    }

    const mayEnter = (r: Resource, ctx: LamportMutexCtx): boolean => {
      if (r.state !== 'WANTED') return false
      const head = r.queue.head
      if (head === undefined || head.pid !== self || head.time !== r.time) return false
      const mine = { time: r.time, pid: self }
      return ctx.peers.every(
        (p) => compareLamport({ time: lastSeen.get(p) ?? -1, pid: p }, mine) > 0,
      )
    }

    const enterWherePossible = (ctx: LamportMutexCtx) => {
      for (const [name, r] of resources) {
        if (!mayEnter(r, ctx)) continue
        r.state = 'HELD'
        ctx.emit({ type: 'acquired', resource: name, token: fencingToken(r.time, rank) })
      }
    }

    const request = (name: string, r: Resource, ctx: LamportMutexCtx) => {
      r.state = 'WANTED'
      r.time = clock.send() // one broadcast event: every copy carries the same T
      r.queue.add({ time: r.time, pid: self })
      announceRequest(name, r.time, rank, ctx)
      enterWherePossible(ctx)
    }

    const release = (name: string, r: Resource, ctx: LamportMutexCtx) => {
      r.state = 'RELEASED'
      r.queue.remove({ time: r.time, pid: self })
      ctx.emit({ type: 'released', resource: name, token: fencingToken(r.time, rank) })
      ctx.broadcast({ type: 'release', resource: name, time: clock.send(), req: r.time })
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
      const r = stateOf(m.resource)
      if (m.type === 'request') {
        if (r.queue.hasFrom(from)) return `second request from ${String(from)} before its release`
        r.queue.add({ time: m.time, pid: from })
        ctx.send(from, { type: 'reply', resource: m.resource, time: clock.send() })
      } else if (m.type === 'release') {
        if (!r.queue.remove({ time: m.req, pid: from }))
          return `release of a request not queued (${m.req})`
      }
      return undefined
    }

    const protocol: Protocol<LamportMutexMessage, MutexRequest, LamportMutexEvent> = {
      snapshot: () => ({
        clock: clock.time,
        rank,
        lastSeen: idMap(lastSeen, (time) => time),
        // In creation order: a step that lets several resources in emits `acquired` in this order.
        resources: nameList(resources, (r) => ({
          state: r.state,
          time: r.time,
          queue: r.queue.snapshot(),
          queued: r.queued,
        })),
      }),

      restore(snapshot) {
        const s = snapshot as LamportMutexSnapshot
        clock.restore(s.clock)
        rank = s.rank
        lastSeen.clear()
        for (const [peer, time] of s.lastSeen) lastSeen.set(peer, time)
        resources.clear()
        for (const [name, r] of s.resources) {
          const queue = new RequestQueue()
          for (const entry of r.queue) queue.add(entry)
          resources.set(name, { state: r.state, time: r.time, queue, queued: r.queued })
        }
      },

      start(ctx) {
        rank = rankOf(self, ctx.peers)
      },

      onRequest(req, ctx) {
        handleLocalRequest(req, self, ctx, stateOf, request, release)
      },

      onMessage(from, msg, ctx) {
        const m = admitMessage(from, msg, ctx.peers.includes(from), parseMessage, ctx)
        if (m === undefined) return
        clock.receive(m.time)
        // With FIFO links a peer's times only grow; max() keeps a stray old one from going back.
        lastSeen.set(from, Math.max(lastSeen.get(from) ?? -1, m.time))
        const refused = apply(from, m, ctx)
        if (refused !== undefined) ctx.emit({ type: 'ignored', from, reason: refused })
        enterWherePossible(ctx)
      },
    }
    return protocol
  }
}
