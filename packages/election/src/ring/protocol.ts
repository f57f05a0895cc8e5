import { type Ctx, type NodeId, type ProtocolFactory, readStored, sortNodeIds } from '@sd/transport'
import { bestOf, compareCandidates, type ElectionRequest } from '../contract.js'
import { restorableWatch, restoreWatch } from '../restore.js'
import { dropLeader, followLeader, isFresh } from '../ring-leadership.js'
import { startedShape } from '../stored.js'
import { observeTerm, storedTerm } from '../terms.js'
import type { RingEvent } from './events.js'
import {
  type CoordinatorPass,
  type ElectionPass,
  type Pass,
  parseMessage,
  type RingMessage,
} from './messages.js'
import { type RingOptions, resolveOptions } from './options.js'
import { ballot, idOrder, sortedHas } from './order.js'
import { restoreRing, ringState, snapshotRing } from './state.js'

type RingCtx = Ctx<RingMessage, RingEvent>

const STARTED_KEY = 'ring:started'

/**
 * The ring election of Tanenbaum's textbook, over the members in id order. An initiator sends
 * ELECTION [its id] to its successor; every live member appends its id and passes it on. Every
 * pass is acknowledged: no ACK within `ackTimeoutMs` and the successor is taken as crashed and
 * skipped. When the ELECTION reaches a member already in its list (its initiator, or the first
 * live one after it) it has been everywhere: that member turns it into COORDINATOR (the best of
 * the list, the list as the new ring, a term) which circulates once.
 *
 * Several initiators at once each run a full circulation; with the same members alive their
 * lists hold the same ids and carry the same highest term, so they announce the same leader in
 * the same term (the term is a ballot of the leader, see `ballot`), and members announce it once.
 *
 * The leader then sends heartbeats to everyone; a follower that hears nothing for the heartbeat
 * timeout emits `leader-lost` and starts an election. A recovered member starts one on start; a
 * fresh group waits for a `start` request (nobody suspects a leader it never had). A member that
 * learns of a leader worse than itself was missed (taken for crashed): it starts an election,
 * which it wins. A leader that resigns tells everyone and starts an election it stands out of.
 */
export function ringElection(
  options: RingOptions = {},
): ProtocolFactory<RingMessage, ElectionRequest, RingEvent> {
  const settings = resolveOptions(options)
  const { priority } = settings
  return (self) => {
    const s = ringState(self, settings.heartbeat)

    const better = (a: NodeId, b: NodeId) => compareCandidates(a, b, priority) > 0
    const skipped = (id: NodeId) =>
      s.dead.has(id) || (s.members !== undefined && !s.back.has(id) && !sortedHas(s.members, id))

    const successor = () => {
      let next = s.order.after(self)
      while (next !== self && skipped(next)) next = s.order.after(next)
      return next
    }

    const heardFrom = (id: NodeId) => {
      s.dead.delete(id)
      if (s.members !== undefined && !sortedHas(s.members, id)) s.back.add(id)
    }

    const pass = (p: Pass, ctx: RingCtx) => {
      const to = successor()
      if (to === self) {
        // Everyone else is skipped: the ELECTION is complete here; a COORDINATOR is done.
        if (p.type === 'election') onElection(p, ctx)
        return
      }
      const hop = ++s.hopSeq
      s.passes.set(hop, { to, pass: p })
      ctx.send(to, { ...p, hop })
      ctx.setTimer(`ack:${hop}`, settings.ackTimeoutMs)
    }

    const beat = (term: number) => (ctx: RingCtx) => ctx.broadcast({ type: 'heartbeat', term })
    const accept = (leader: NodeId, term: number, ctx: RingCtx) =>
      followLeader(s, self, leader, term, ctx, beat(term))
    /** Restored, not started: the ring (configuration, ctx.peers) is set at the first step. */
    let unconfigured = false
    const configure = (ctx: RingCtx) => {
      if (!unconfigured) return
      s.order = idOrder(self, ctx.peers)
      unconfigured = false
    }
    const drop = (ctx: RingCtx) => dropLeader(s, ctx)
    const fresh = (term: number) => isFresh(s, term)

    const waitForCoordinator = (ctx: RingCtx) => {
      s.electing = true
      ctx.setTimer('election', s.electionMs)
    }

    const initiate = (ctx: RingCtx) => {
      s.round = Math.floor(ctx.random() * 2 ** 31)
      waitForCoordinator(ctx)
      const out = s.standAside ? [self] : []
      pass(
        { type: 'election', list: [self], out, max: storedTerm(ctx.storage), round: s.round },
        ctx,
      )
    }

    /** A leader of a term this member never saw, from a heartbeat or an answer to one. */
    const learned = (leader: NodeId, term: number, ctx: RingCtx) => {
      if (!fresh(term)) return
      observeTerm(ctx.storage, term)
      if (better(self, leader) && !s.standAside) {
        if (!s.electing) initiate(ctx)
      } else {
        s.electing = false
        ctx.cancelTimer('election')
        accept(leader, term, ctx)
      }
    }

    const close = (m: ElectionPass, ctx: RingCtx) => {
      const initiator = m.list[0]!
      if (initiator === self) {
        if (s.round !== m.round) return // an older election of ours, or a duplicate
        s.round = undefined
      } else {
        // The initiator was skipped: the first member it went through closes it.
        if (s.lastClosed?.initiator === initiator && s.lastClosed.round === m.round) return
        s.lastClosed = { initiator, round: m.round }
      }
      const candidates = m.out.length > 0 ? m.list.filter((id) => !m.out.includes(id)) : m.list
      const leader = bestOf(candidates.length > 0 ? candidates : m.list, priority)!
      const seen = Math.max(m.max, storedTerm(ctx.storage))
      const coordinator: CoordinatorPass = {
        type: 'coordinator',
        leader,
        term: ballot(seen, s.order.rank(leader), s.order.size),
        members: sortNodeIds(m.list),
        closer: self,
        hops: 0,
      }
      adopt(coordinator, ctx)
      pass({ ...coordinator, hops: 1 }, ctx)
    }

    function onElection(m: ElectionPass, ctx: RingCtx) {
      if (m.list.includes(self)) return close(m, ctx)
      waitForCoordinator(ctx)
      pass(
        {
          type: 'election',
          list: [...m.list, self],
          out: s.standAside ? [...m.out, self] : m.out,
          max: Math.max(m.max, storedTerm(ctx.storage)),
          round: m.round,
        },
        ctx,
      )
    }

    function adopt(m: CoordinatorPass, ctx: RingCtx) {
      observeTerm(ctx.storage, m.term)
      s.members = m.members
      s.dead.clear()
      s.back.clear()
      s.electing = false
      ctx.cancelTimer('election')
      if (better(self, m.leader) && !sortedHas(m.members, self) && !s.standAside) {
        initiate(ctx) // the election went round without us
        return
      }
      if (fresh(m.term)) accept(m.leader, m.term, ctx)
    }

    const onCoordinator = (m: CoordinatorPass, ctx: RingCtx) => {
      if (m.closer === self || m.hops >= s.order.size) return // back home, or its closer crashed
      adopt(m, ctx)
      pass({ ...m, hops: m.hops + 1 }, ctx)
    }

    return {
      snapshot: () => snapshotRing(s),

      ...(restorableWatch(settings.heartbeat) && {
        restore(snapshot: unknown) {
          const watch = restoreRing(s, snapshot)
          // Only a leader beats, and only for the term it leads.
          restoreWatch(s.watch, watch, 'ringElection()', s.current && beat(s.current.term))
          unconfigured = true
        },
      }),

      start(ctx) {
        s.order = idOrder(self, ctx.peers)
        s.electionMs = settings.electionTimeoutMs(s.order.size)
        s.lastTerm = storedTerm(ctx.storage)
        // A recovered member starts an election; a fresh group waits for a request.
        if (readStored(ctx.storage, STARTED_KEY, startedShape) === true) initiate(ctx)
        else ctx.storage.set(STARTED_KEY, true)
      },

      onRequest(req, ctx) {
        configure(ctx)
        const r: { type?: unknown } = req
        if (r.type === 'start') {
          drop(ctx)
          return initiate(ctx)
        }
        if (r.type === 'resign') {
          if (s.current?.leader !== self) {
            return ctx.emit({ type: 'ignored', from: self, reason: 'resign: not the leader' })
          }
          const { term } = s.current
          drop(ctx)
          ctx.broadcast({ type: 'resign', term })
          s.standAside = true
          return initiate(ctx)
        }
        ctx.emit({ type: 'ignored', from: self, reason: 'unknown request' })
      },

      onTimer(key, ctx) {
        configure(ctx)
        if (key.startsWith('ack:')) {
          const hop = Number(key.slice(4))
          const p = s.passes.get(hop)
          if (p === undefined) return
          s.passes.delete(hop)
          s.dead.add(p.to)
          ctx.emit({ type: 'skipped', node: p.to })
          return pass(p.pass, ctx)
        }
        if (key === 'election') {
          if (s.electing) initiate(ctx)
          return
        }
        if (s.watch.onTimer(key, ctx) === 'suspect') {
          drop(ctx)
          if (!s.electing) initiate(ctx)
        }
      },

      onMessage(from, raw, ctx) {
        configure(ctx)
        const m = parseMessage(raw)
        if (typeof m === 'string') return ctx.emit({ type: 'ignored', from, reason: m })
        if (from === self || !s.order.has(from)) {
          return ctx.emit({ type: 'ignored', from, reason: 'not a member' })
        }
        heardFrom(from)
        switch (m.type) {
          case 'election':
          case 'coordinator': {
            ctx.send(from, { type: 'ack', hop: m.hop })
            const { hop: _, ...p } = m
            return p.type === 'election' ? onElection(p, ctx) : onCoordinator(p, ctx)
          }
          case 'ack': {
            const p = s.passes.get(m.hop)
            if (p === undefined || p.to !== from) return
            s.passes.delete(m.hop)
            return ctx.cancelTimer(`ack:${m.hop}`)
          }
          case 'heartbeat':
            if (s.current?.leader === from && s.current.term === m.term) return s.watch.heard(ctx)
            if (m.term < s.lastTerm && s.current !== undefined) {
              return ctx.send(from, { type: 'leader-is', ...s.current })
            }
            return learned(from, m.term, ctx)
          case 'leader-is':
            return learned(m.leader, m.term, ctx)
          case 'resign':
            if (s.current?.leader !== from || s.current.term !== m.term) return
            drop(ctx)
            return waitForCoordinator(ctx) // the resigning leader runs the election
        }
      },
    }
  }
}
