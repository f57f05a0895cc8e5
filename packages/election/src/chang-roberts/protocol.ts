import { type Ctx, type NodeId, type ProtocolFactory, readStored } from '@sd/transport'
import { compareCandidates, type ElectionRequest } from '../contract.js'
import { restorableWatch, restoreWatch } from '../restore.js'
import { ballot, explicitOrder, idOrder } from '../ring/order.js'
import { dropLeader, followLeader, isFresh } from '../ring-leadership.js'
import { startedShape } from '../stored.js'
import { observeTerm, storedTerm } from '../terms.js'
import type { ChangRobertsEvent } from './events.js'
import { type ChangRobertsMessage, parseMessage } from './messages.js'
import { type ChangRobertsOptions, resolveOptions } from './options.js'
import { changRobertsState, restoreChangRoberts, snapshotChangRoberts } from './state.js'

type ChangRobertsCtx = Ctx<ChangRobertsMessage, ChangRobertsEvent>
type Election = Extract<ChangRobertsMessage, { type: 'election' }>

const STARTED_KEY = 'chang-roberts:started'

/**
 * Chang and Roberts' election on a unidirectional ring: one id travels instead of a list.
 * ELECTION(j) at a member: j better than its own id, forward it; worse, and not yet a
 * participant, send its own id instead; worse and a participant, swallow it (a better id is
 * already on its way); its own id, it has gone all round: this member is the best and sends
 * ELECTED round the ring, which makes everyone a non-participant again. With every member
 * starting at once this costs n(n+1)/2 ELECTION messages when the ids decrease along the ring, and
 * n·H_n on average over the arrangements of the ids.
 *
 * The algorithm assumes no failures, and this implementation adds only what heartbeats give: the
 * leader sends them, and a follower that hears nothing for the timeout emits `leader-lost`,
 * starts an election and passes over the leader it suspects (a ring through a crashed member
 * goes nowhere). A crashed follower breaks the ring: elections die at it, and participants start
 * over after `electionTimeoutMs`, to die again until it comes back. A recovered member starts an
 * election on start. A leader that resigns tells everyone; its successor starts the election,
 * which it relays without standing in.
 *
 * Terms: ELECTION carries the highest term it passed; the winner takes the ballot above it (see
 * `ballot`), so a winner never shares a term with another even when a false suspicion lets two
 * elections finish.
 */
export function changRoberts(
  options: ChangRobertsOptions = {},
): ProtocolFactory<ChangRobertsMessage, ElectionRequest, ChangRobertsEvent> {
  const settings = resolveOptions(options)
  const { priority } = settings
  const given = settings.ring === undefined ? undefined : explicitOrder(settings.ring)
  return (self) => {
    const s = changRobertsState(self, settings.heartbeat)

    const better = (a: NodeId, b: NodeId) => compareCandidates(a, b, priority) > 0

    const toAll = (msg: ChangRobertsMessage, ctx: ChangRobertsCtx) => {
      for (const id of s.order.others()) ctx.send(id, msg)
    }

    const forward = (msg: ChangRobertsMessage, ctx: ChangRobertsCtx) => {
      let to = s.order.after(self)
      while (to !== self && s.suspected.has(to)) to = s.order.after(to)
      if (msg.type === 'election') s.sent = { to, msg }
      if (to !== self) ctx.send(to, msg)
      else if (msg.type === 'election') onElection(msg, ctx) // alone: our own id is back
    }

    const beat = (term: number) => (ctx: ChangRobertsCtx) => toAll({ type: 'heartbeat', term }, ctx)
    const accept = (leader: NodeId, term: number, ctx: ChangRobertsCtx) => {
      s.resigned = undefined
      followLeader(s, self, leader, term, ctx, beat(term))
    }
    /** Restored, not started: the ring (configuration) is set at the first step. */
    let unconfigured = false
    const configure = (ctx: ChangRobertsCtx) => {
      if (!unconfigured) return
      s.order = given ? given(self) : idOrder(self, ctx.peers)
      unconfigured = false
    }
    const drop = (ctx: ChangRobertsCtx) => dropLeader(s, ctx)
    const fresh = (term: number) => isFresh(s, term)

    const becomeParticipant = (ctx: ChangRobertsCtx) => {
      s.participant = true
      ctx.setTimer('election', s.electionMs)
    }

    const initiate = (ctx: ChangRobertsCtx) => {
      if (s.standAside) return
      becomeParticipant(ctx)
      forward({ type: 'election', candidate: self, max: storedTerm(ctx.storage) }, ctx)
    }

    const settle = (ctx: ChangRobertsCtx) => {
      s.participant = false
      ctx.cancelTimer('election')
    }

    /** A leader of a term this member never saw, from a heartbeat or an answer to one. */
    const learned = (leader: NodeId, term: number, ctx: ChangRobertsCtx) => {
      if (!fresh(term)) return
      observeTerm(ctx.storage, term)
      if (better(self, leader) && !s.standAside) {
        if (!s.participant) initiate(ctx) // the last election went round without us
        return
      }
      settle(ctx)
      accept(leader, term, ctx)
    }

    function onElection(m: Election, ctx: ChangRobertsCtx) {
      s.suspected.delete(m.candidate) // it was alive when it sent this
      const max = Math.max(m.max, storedTerm(ctx.storage))
      if (m.candidate === self) {
        if (s.standAside) return // sent before we resigned: we are out
        // Our own id came back: nobody on the ring is better.
        settle(ctx)
        const term = ballot(max, s.order.rank(self), s.order.size)
        observeTerm(ctx.storage, term)
        accept(self, term, ctx)
        return forward({ type: 'elected', leader: self, term }, ctx)
      }
      if (s.standAside || (m.candidate !== s.resigned && better(m.candidate, self))) {
        becomeParticipant(ctx)
        return forward({ type: 'election', candidate: m.candidate, max }, ctx)
      }
      if (s.participant) return // swallowed: a better id is on its way
      becomeParticipant(ctx)
      forward({ type: 'election', candidate: self, max }, ctx)
    }

    const onElected = (
      m: Extract<ChangRobertsMessage, { type: 'elected' }>,
      ctx: ChangRobertsCtx,
    ) => {
      if (m.leader === self) return // round the ring: done
      s.suspected.delete(m.leader)
      s.participant = false
      ctx.cancelTimer('election')
      observeTerm(ctx.storage, m.term)
      forward(m, ctx)
      if (!fresh(m.term)) return // had it from the heartbeats already
      // A better winner than us: our predecessor passed over us when the ELECTION came by.
      if (better(self, m.leader) && !s.standAside) initiate(ctx)
      else accept(m.leader, m.term, ctx)
    }

    return {
      snapshot: () => snapshotChangRoberts(s),

      ...(restorableWatch(settings.heartbeat) && {
        restore(snapshot: unknown) {
          const watch = restoreChangRoberts(s, snapshot)
          // Only a leader beats, and only for the term it leads.
          restoreWatch(s.watch, watch, 'changRoberts()', s.current && beat(s.current.term))
          unconfigured = true
        },
      }),

      start(ctx) {
        s.order = given ? given(self) : idOrder(self, ctx.peers)
        s.electionMs = settings.electionTimeoutMs(s.order.size)
        s.lastTerm = storedTerm(ctx.storage)
        const recovered = readStored(ctx.storage, STARTED_KEY, startedShape) === true
        if (!recovered) ctx.storage.set(STARTED_KEY, true)
        if (recovered || settings.startAll) initiate(ctx)
      },

      onRequest(req, ctx) {
        configure(ctx)
        const r: { type?: unknown } = req
        if (r.type === 'start') {
          drop(ctx)
          if (!s.participant) initiate(ctx) // a participant's election is already under way
          return
        }
        if (r.type === 'resign') {
          if (s.current?.leader !== self) {
            return ctx.emit({ type: 'ignored', from: self, reason: 'resign: not the leader' })
          }
          const { term } = s.current
          drop(ctx)
          s.standAside = true
          // Our successor starts the election; we only relay it.
          return toAll({ type: 'resign', term }, ctx)
        }
        ctx.emit({ type: 'ignored', from: self, reason: 'unknown request' })
      },

      onTimer(key, ctx) {
        configure(ctx)
        if (key === 'election') {
          // Our election died on the way (a crashed member), or nobody started one after a resign.
          if (s.participant || s.current === undefined) {
            s.participant = false
            initiate(ctx)
          }
          return
        }
        if (s.watch.onTimer(key, ctx) === 'suspect' && s.current !== undefined) {
          const { leader } = s.current
          s.suspected.add(leader)
          drop(ctx)
          if (!s.participant) initiate(ctx)
          // Another follower noticed first, and we passed its election to the dead leader: again,
          // round it.
          else if (s.sent?.to === leader) forward(s.sent.msg, ctx)
        }
      },

      onMessage(from, raw, ctx) {
        configure(ctx)
        const m = parseMessage(raw)
        if (typeof m === 'string') return ctx.emit({ type: 'ignored', from, reason: m })
        if (from === self || !s.order.has(from)) {
          return ctx.emit({ type: 'ignored', from, reason: 'not a member' })
        }
        s.suspected.delete(from)
        switch (m.type) {
          case 'election':
            return onElection(m, ctx)
          case 'elected':
            return onElected(m, ctx)
          case 'heartbeat':
            if (s.current?.leader === from && s.current.term === m.term) return s.watch.heard(ctx)
            if (m.term < s.lastTerm && s.current !== undefined) {
              return ctx.send(from, { type: 'leader-is', ...s.current })
            }
            return learned(from, m.term, ctx)
          case 'leader-is':
            return learned(m.leader, m.term, ctx)
          case 'resign':
            if (m.term < s.lastTerm) return // an old one
            if (s.current?.leader === from && s.current.term === m.term) drop(ctx)
            // An election under way may carry its id: it dies at the leader, so nobody swallows
            // for it any longer, and a member it reaches now takes it for the worst id.
            s.resigned = from
            s.participant = false
            if (s.order.after(from) === self) initiate(ctx)
            else ctx.setTimer('election', s.electionMs)
        }
      },
    }
  }
}
