import { InvalidClockArgumentError } from '../errors.js'
import { compareNodeIds, type NodeId } from '../ids.js'
import { compareLamport, LamportClock, type LamportTimestamp } from '../lamport.js'
import type { ClockProtocol, ProtocolContext } from '../protocol.js'
import type { TotalOrderEvent } from './events.js'
import { parseMessage, type TotalOrderMessage } from './messages.js'
import { parseSnapshot, type TotalOrderSnapshot } from './snapshot.js'

export interface TotalOrderRequest<P> {
  type: 'broadcast'
  payload: P
}

type TotalOrderCtx<P> = ProtocolContext<TotalOrderMessage<P>, TotalOrderEvent<P>>

interface Queued<P> {
  timestamp: LamportTimestamp
  payload: P
}

const copy = <P>(m: TotalOrderMessage<P>): TotalOrderMessage<P> =>
  m.type === 'to-ack' ? { ...m, of: { ...m.of } } : { ...m }

/**
 * Totally ordered broadcast with Lamport timestamps and acknowledgements (Lamport 1978): a
 * broadcast is stamped (T, pid) and queued by every member, each of which acknowledges it to all.
 * A member delivers the head of its queue once every other member has sent it something stamped
 * at or after the head in the (T, pid) order: on FIFO links nothing earlier can still arrive.
 * Every member delivers the same sequence. n(n - 1) messages per broadcast (n - 1 copies, then
 * n - 1 acks from each receiver). Links may reorder (a per-link sequence number restores FIFO) but
 * must not lose messages, and a crashed member blocks delivery: this algorithm is not fault tolerant.
 */
export function totalOrderBroadcast<P = unknown>(): ClockProtocol<
  TotalOrderMessage<P>,
  TotalOrderRequest<P>,
  TotalOrderEvent<P>
> {
  let clock: LamportClock | undefined
  let peers: readonly NodeId[] = []
  const queue: Queued<P>[] = []
  /** The latest (T, pid) heard from each peer. */
  const latest = new Map<NodeId, LamportTimestamp>()
  const nextOut = new Map<NodeId, number>()
  const nextIn = new Map<NodeId, number>()
  const early = new Map<NodeId, Map<number, TotalOrderMessage<P>>>()
  let delivered = 0
  /** A state given to `restore`, taken on once the node's id (its clock's pid) is known. */
  let restored: TotalOrderSnapshot<P> | undefined

  const init = (ctx: TotalOrderCtx<P>) => {
    if (!clock) {
      clock = new LamportClock({ pid: ctx.self })
      if (restored === undefined) peers = [...ctx.peers].sort(compareNodeIds)
      else takeOn(clock, restored)
      restored = undefined
    }
    return clock
  }

  const takeOn = (c: LamportClock, s: TotalOrderSnapshot<P>) => {
    c.restore(s.time)
    peers = [...s.peers]
    for (const q of s.queue) queue.push({ timestamp: { ...q.timestamp }, payload: q.payload })
    for (const l of s.latest) latest.set(l.peer, { ...l.timestamp })
    for (const l of s.nextOut) nextOut.set(l.peer, l.link)
    for (const l of s.nextIn) nextIn.set(l.peer, l.link)
    for (const e of s.early) early.set(e.peer, new Map(e.messages.map((m) => [m.link, copy(m)])))
    delivered = s.delivered
  }

  const sendAll = (ctx: TotalOrderCtx<P>, make: (link: number) => TotalOrderMessage<P>) => {
    for (const peer of peers) {
      const link = nextOut.get(peer) ?? 0
      nextOut.set(peer, link + 1)
      ctx.send(peer, make(link))
    }
  }

  const insert = (item: Queued<P>) => {
    // Binary search: the queue stays sorted by (T, pid).
    let lo = 0
    let hi = queue.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (compareLamport(queue[mid]!.timestamp, item.timestamp) < 0) lo = mid + 1
      else hi = mid
    }
    queue.splice(lo, 0, item)
  }

  const tryDeliver = (ctx: TotalOrderCtx<P>) => {
    for (;;) {
      const head = queue[0]
      if (head === undefined) return
      for (const peer of peers) {
        const seen = latest.get(peer)
        if (seen === undefined || compareLamport(seen, head.timestamp) < 0) return
      }
      queue.shift()
      ctx.emit({
        type: 'deliver',
        index: delivered++,
        timestamp: head.timestamp,
        payload: head.payload,
      })
    }
  }

  const handle = (from: NodeId, msg: TotalOrderMessage<P>, ctx: TotalOrderCtx<P>) => {
    const c = init(ctx)
    c.receive(msg.time)
    const seen = latest.get(from)
    const stamp = { time: msg.time, pid: from }
    if (seen === undefined || compareLamport(seen, stamp) < 0) latest.set(from, stamp)
    if (msg.type === 'to-msg') {
      insert({ timestamp: stamp, payload: msg.payload })
      const time = c.send()
      sendAll(ctx, (link) => ({ type: 'to-ack', link, time, of: stamp }))
    }
    tryDeliver(ctx)
  }

  return {
    start(ctx) {
      init(ctx)
    },
    onRequest(req, ctx) {
      const c = init(ctx)
      if (req === null || typeof req !== 'object' || req.type !== 'broadcast') {
        throw new InvalidClockArgumentError(
          `total order broadcast: unknown request ${JSON.stringify(req)}; expected { type: 'broadcast', payload }`,
        )
      }
      const time = c.send()
      const timestamp = { time, pid: ctx.self }
      ctx.emit({ type: 'broadcast', timestamp, payload: req.payload })
      insert({ timestamp, payload: req.payload })
      sendAll(ctx, (link) => ({ type: 'to-msg', link, time, payload: req.payload }))
      tryDeliver(ctx)
    },
    onMessage(from, raw, ctx) {
      init(ctx)
      if (!peers.includes(from))
        return ctx.emit({
          type: 'ignored',
          from,
          reason: `${JSON.stringify(from)} is not a member of the group`,
        })
      const msg = parseMessage<P>(raw)
      if (typeof msg === 'string') return ctx.emit({ type: 'ignored', from, reason: msg })
      // Per-link FIFO: hold what arrives early, drop duplicates.
      const expected = nextIn.get(from) ?? 0
      if (msg.link < expected) return
      let held = early.get(from)
      if (msg.link > expected) {
        if (!held) {
          held = new Map()
          early.set(from, held)
        }
        held.set(msg.link, msg)
        return
      }
      handle(from, msg, ctx)
      let next = expected + 1
      for (let m = held?.get(next); m !== undefined; m = held?.get(next)) {
        held!.delete(next)
        handle(from, m, ctx)
        next++
      }
      nextIn.set(from, next)
    },
    snapshot() {
      if (!clock) return restored ?? null
      // Maps become arrays sorted by peer (then link): their insertion order is not state, and a
      // peer whose early map emptied is the same state as one that never had one.
      const byPeer = <V>(map: Map<NodeId, V>) =>
        [...map].sort(([a], [b]) => compareNodeIds(a, b)).map(([peer, value]) => ({ peer, value }))
      return {
        time: clock.time,
        peers: [...peers],
        queue: queue.map((q) => ({ timestamp: { ...q.timestamp }, payload: q.payload })),
        latest: byPeer(latest).map(({ peer, value }) => ({ peer, timestamp: { ...value } })),
        nextOut: byPeer(nextOut).map(({ peer, value }) => ({ peer, link: value })),
        nextIn: byPeer(nextIn).map(({ peer, value }) => ({ peer, link: value })),
        early: byPeer(early)
          .filter(({ value }) => value.size > 0)
          .map(({ peer, value }) => ({
            peer,
            messages: [...value.keys()].sort((a, b) => a - b).map((link) => copy(value.get(link)!)),
          })),
        delivered,
      }
    },
    restore(snapshot) {
      const s = snapshot === null ? undefined : parseSnapshot<P>(snapshot)
      clock = undefined
      peers = []
      queue.length = 0
      for (const map of [latest, nextOut, nextIn, early]) map.clear()
      delivered = 0
      restored = s
    },
  }
}
