import { type Ctx, type NodeId, type ProtocolFactory, sortNodeIds } from '@sd/transport'
import {
  DEFAULT_RESOURCE,
  type MutexRequest,
  resourceOf,
  type ViewRequest,
  type WithLockFeatures,
  withLockFeatures,
} from '../contract.js'
import type { Snapshot } from '../snapshot.js'
import type { TokenRingEvent } from './events.js'
import {
  GENERATION_UNIT,
  MAX_VIEW,
  parseMessage,
  type TokenRingMessage,
  type TokenState,
} from './messages.js'
import { resolveOptions, type TokenRingOptions } from './options.js'
import { compareElection, sameMembers, successorOf } from './ring.js'
import { initialState, snapshotOf, stateFrom, type TokenRingState } from './state.js'

/** What every handler and helper is handed (never kept). */
export type TokenRingCtx = Ctx<TokenRingMessage, TokenRingEvent>
type RegenMessage = Extract<TokenRingMessage, { type: 'regen' }>

/**
 * Token ring mutual exclusion over the members in id order. The lowest id creates the token; it
 * always circulates (a holder that does not want the section passes it after `holdMs`), so an
 * idle ring keeps sending messages, as in the texts, and a node can tell a lost token by silence.
 *
 * A pass is TOKEN, ACK, COMMIT: the receiver may use the token only once the sender has chosen it
 * (COMMIT), so a lost ACK that makes the sender skip a live successor never leaves two usable
 * copies. No ACK after `retries` resends: the successor is taken as crashed, removed from the
 * ring the token carries, and the token goes to the next one.
 *
 * Lost token: after `lostTokenTimeoutMs` without a token a node starts a regeneration election
 * around the ring with generation g + 1; the highest (generation, initiator) wins, each node it
 * passes destroys tokens of older generations on sight, and a node that has the token (held,
 * being handed over or arriving) stops it; a holder then lifts the token to the election's
 * generation (so the nodes the election passed let it through) and takes the nodes the election
 * went through back into the ring. The initiator that gets its own election back creates the
 * token of that generation, with the ring the election collected.
 *
 * Views (`ViewRequest`): a view only changes who the token goes to, never how many tokens
 * there are (only a regeneration creates one), so it needs no precondition for safety. The token
 * carries the view its ring comes from; a node of a newer view gives it that view's ring (a
 * joiner gets the token in turn, a node left out is skipped without the ACK retries), and a node
 * of an older view takes the token's. A pass in flight across a change is handled by its
 * receiver; a waiting acquire stays waiting, whatever the view.
 *
 * Not tolerated: partitions (each side regenerates its own token), and a live holder inside the
 * section that a regeneration skips because all its ACKs were lost (`retries` + 1 in a row).
 */
export function tokenRing(
  options: TokenRingOptions = {},
): WithLockFeatures<ProtocolFactory<TokenRingMessage, MutexRequest | ViewRequest, TokenRingEvent>> {
  const settings = resolveOptions(options)
  const factory: ProtocolFactory<TokenRingMessage, MutexRequest | ViewRequest, TokenRingEvent> = (
    self,
  ) => {
    /** All the volatile state, in one object that `snapshot()` reads whole. */
    const s: TokenRingState = initialState(self)

    const hasToken = () =>
      s.token !== undefined || s.pending !== undefined || s.incoming !== undefined

    const adoptView = (members: NodeId[], ctx: TokenRingCtx) => {
      if (sameMembers(members, s.view)) return
      s.view = [...members]
      ctx.emit({ type: 'ring-changed', members: [...s.view] })
    }

    const enter = (ctx: TokenRingCtx) => {
      const t = s.token!
      s.wants--
      t.count++
      s.inSection = true
      s.entryToken = t.generation * GENERATION_UNIT + t.count
      ctx.emit({ type: 'acquired', resource: DEFAULT_RESOURCE, token: s.entryToken })
    }

    const sendPass = (ctx: TokenRingCtx) => {
      const p = s.pending!
      ctx.send(p.to, { type: 'token', pass: p.pass, ...p.state, members: [...p.state.members] })
      ctx.setTimer('ack', settings.ackTimeoutMs)
    }

    const passOn = (ctx: TokenRingCtx) => {
      const state = s.token!
      const to = successorOf(state.members, self)
      if (to === undefined) {
        if (s.wants > 0) enter(ctx) // alone in the ring: keep the token
        return
      }
      s.token = undefined
      s.pending = { to, pass: ++s.passSeq, state, tries: 0 }
      sendPass(ctx)
    }

    /** Gives the token the ring of the newest view known here, or this node the token's view. */
    const followView = (t: TokenState) => {
      const carried = t.view ?? 0
      if (carried < s.viewNo) {
        t.members = [...s.viewMembers]
        t.view = s.viewNo
      } else if (carried > s.viewNo) {
        s.viewNo = carried
        s.viewMembers = [...t.members]
        s.lostMs = settings.lostTokenTimeoutMs(t.members.length)
      }
    }

    const install = (v: ViewRequest, ctx: TokenRingCtx) => {
      const ok = Number.isSafeInteger(v.view) && v.view <= MAX_VIEW && Array.isArray(v.members)
      if (!ok) return ctx.emit({ type: 'ignored', from: self, reason: 'malformed view' })
      if (v.view <= s.viewNo) {
        return ctx.emit({ type: 'ignored', from: self, reason: `view ${v.view} not above mine` })
      }
      const known = new Set<NodeId>([self, ...s.peers])
      s.viewNo = v.view
      s.viewMembers = sortNodeIds(new Set(v.members.filter((m) => known.has(m))))
      s.lostMs = settings.lostTokenTimeoutMs(s.viewMembers.length)
      if (s.token !== undefined) followView(s.token)
      adoptView(s.viewMembers, ctx)
    }

    const becomeHolder = (state: TokenState, ctx: TokenRingCtx) => {
      followView(state)
      s.token = state
      s.tokenGen = Math.max(s.tokenGen, state.generation)
      s.floor = Math.max(s.floor, state.generation)
      adoptView(state.members, ctx)
      ctx.cancelTimer('lost')
      if (s.wants > 0) enter(ctx)
      else ctx.setTimer('pass', settings.holdMs)
    }

    const destroy = (generation: number, ctx: TokenRingCtx) =>
      ctx.emit({ type: 'token-destroyed', generation })

    const forwardRegen = (msg: Omit<RegenMessage, 'hop'>, ctx: TokenRingCtx) => {
      const to = successorOf(s.view, self)
      if (to === undefined) {
        if (msg.initiator === self) onRegen(self, { ...msg, hop: 0 }, ctx)
        return
      }
      s.regenPending = { to, hop: ++s.hopSeq, msg, tries: 0 }
      ctx.send(to, { ...msg, live: [...msg.live], hop: s.regenPending.hop })
      ctx.setTimer('regen-ack', settings.ackTimeoutMs)
    }

    const startRegen = (ctx: TokenRingCtx) => {
      const generation = Math.max(s.floor, s.tokenGen, s.best?.generation ?? 0) + 1
      s.best = { generation, initiator: self }
      s.floor = generation
      ctx.setTimer('lost', s.lostMs) // try again if this one fails
      forwardRegen({ type: 'regen', generation, initiator: self, live: [self] }, ctx)
    }

    /**
     * The token is alive here, so the election `m` stops. The nodes it went through now destroy
     * tokens below its generation, so the token moves up to it (no other token of that generation
     * can be created: its election would have to pass this token); whoever ran it is alive.
     */
    const liftAbove = (
      t: TokenState,
      m: { generation: number; live: NodeId[] },
      ctx: TokenRingCtx,
    ) => {
      if (m.generation > t.generation) {
        t.generation = m.generation
        s.tokenGen = Math.max(s.tokenGen, m.generation)
        s.floor = Math.max(s.floor, m.generation)
      }
      const missing = m.live.filter(
        (id) => !t.members.includes(id) && (id === self || s.peers.includes(id)),
      )
      if (missing.length > 0) {
        t.members = sortNodeIds(new Set([...t.members, ...missing]))
        adoptView(t.members, ctx)
      }
    }

    function onRegen(from: NodeId, m: RegenMessage, ctx: TokenRingCtx) {
      if (from !== self) ctx.send(from, { type: 'regen-ack', hop: m.hop })
      if (m.initiator === self) {
        // Back home: this node's election went round without meeting the token or a better one.
        const mine = s.best !== undefined && compareElection(s.best, m) === 0
        if (!mine || hasToken() || m.generation <= s.tokenGen) return
        const members = sortNodeIds(new Set(m.live))
        ctx.emit({ type: 'token-regenerated', generation: m.generation })
        const view = s.viewNo === 0 ? {} : { view: s.viewNo } // its ring: the one collected
        becomeHolder({ generation: m.generation, count: 0, members, ...view }, ctx)
        return
      }
      // A node taken for dead that is running an election is alive: back into the ring it goes.
      if (!s.view.includes(m.initiator)) adoptView(sortNodeIds([...s.view, m.initiator]), ctx)
      if (s.token !== undefined) return liftAbove(s.token, m, ctx)
      if (s.incoming !== undefined) {
        // Arriving here: the same once the sender commits it to us.
        s.stopped = {
          generation: Math.max(s.stopped?.generation ?? 0, m.generation),
          live: [...(s.stopped?.live ?? []), ...m.live],
        }
        return
      }
      if (hasToken()) return // being handed over: this election stops
      if (m.generation <= s.tokenGen) return // stale: a token of that generation exists
      if (s.best !== undefined && compareElection(m, s.best) <= 0) return // beaten or a duplicate
      s.best = { generation: m.generation, initiator: m.initiator }
      s.floor = Math.max(s.floor, m.generation)
      ctx.setTimer('lost', s.lostMs) // a regeneration is under way: do not start another
      forwardRegen(
        {
          type: 'regen',
          generation: m.generation,
          initiator: m.initiator,
          live: [...m.live, self],
        },
        ctx,
      )
    }

    const onToken = (
      from: NodeId,
      m: Extract<TokenRingMessage, { type: 'token' }>,
      ctx: TokenRingCtx,
    ) => {
      const ack = () => ctx.send(from, { type: 'ack', pass: m.pass })
      if (s.incoming !== undefined && s.incoming.from === from && s.incoming.pass === m.pass)
        return ack()
      if (s.lastTaken !== undefined && s.lastTaken.from === from && s.lastTaken.pass === m.pass)
        return ack()
      s.lastTaken = { from, pass: m.pass }
      ack() // acknowledged even when destroyed, so the sender stops resending it
      const state: TokenState = {
        generation: m.generation,
        count: m.count,
        members: sortNodeIds(m.members),
        ...(m.view === undefined ? {} : { view: m.view }),
      }
      if (state.generation < s.floor || hasToken()) return destroy(state.generation, ctx)
      s.incoming = { from, pass: m.pass, state, tries: 0 }
      ctx.cancelTimer('lost')
      ctx.setTimer('commit', settings.ackTimeoutMs)
    }

    return {
      snapshot: () => snapshotOf(s),

      restore(snapshot) {
        Object.assign(s, stateFrom(snapshot as Snapshot))
      },

      start(ctx) {
        s.peers = ctx.peers
        s.view = sortNodeIds([self, ...ctx.peers])
        s.viewMembers = [...s.view]
        s.lostMs = settings.lostTokenTimeoutMs(s.view.length)
        // A restarted node must not create a second token.
        const restarted = ctx.storage.get('started') === true
        if (!restarted) ctx.storage.set('started', true)
        if (!restarted && s.view[0] === self) {
          becomeHolder({ generation: 0, count: 0, members: [...s.view] }, ctx)
        } else ctx.setTimer('lost', s.lostMs)
      },

      onRequest(req, ctx) {
        const r: { type?: unknown } = req // checked: application code may pass anything
        if (r.type === 'view') return install(req as ViewRequest, ctx)
        if (req.type === 'view' || (r.type !== 'acquire' && r.type !== 'release')) {
          return ctx.emit({ type: 'ignored', from: self, reason: 'unknown request' })
        }
        if (resourceOf(req) !== DEFAULT_RESOURCE) {
          return ctx.emit({
            type: 'ignored',
            from: self,
            reason: `only ${DEFAULT_RESOURCE} is managed`,
          })
        }
        if (req.type === 'acquire') {
          s.wants++
          if (s.token !== undefined && !s.inSection) {
            ctx.cancelTimer('pass')
            enter(ctx)
          }
          return
        }
        if (!s.inSection)
          return ctx.emit({ type: 'ignored', from: self, reason: 'release outside the section' })
        s.inSection = false
        ctx.emit({ type: 'released', resource: DEFAULT_RESOURCE, token: s.entryToken })
        passOn(ctx)
      },

      onTimer(key, ctx) {
        if (key === 'pass') {
          if (s.token === undefined || s.inSection) return
          if (s.wants > 0) enter(ctx)
          else passOn(ctx)
        } else if (key === 'ack') {
          if (s.pending === undefined) return
          if (s.pending.tries < settings.retries) {
            s.pending.tries++
            return sendPass(ctx)
          }
          // No ACK: the successor crashed. Skip it, and tell the ring through the token.
          const { state, to } = s.pending
          s.pending = undefined
          followView(state) // first, so a newer view does not bring it back
          state.members = state.members.filter((m) => m !== to)
          s.token = state
          adoptView(state.members, ctx)
          if (s.wants > 0) enter(ctx)
          else passOn(ctx)
        } else if (key === 'commit') {
          if (s.incoming === undefined) return
          if (s.incoming.tries < settings.retries) {
            s.incoming.tries++
            ctx.send(s.incoming.from, { type: 'ack', pass: s.incoming.pass })
            return ctx.setTimer('commit', settings.ackTimeoutMs)
          }
          // The sender gave us up (or died before committing): this copy is not ours.
          destroy(s.incoming.state.generation, ctx)
          s.incoming = undefined
          s.stopped = undefined
          ctx.setTimer('lost', s.lostMs)
        } else if (key === 'regen-ack') {
          if (s.regenPending === undefined) return
          const p = s.regenPending
          if (p.tries < settings.retries) {
            p.tries++
            ctx.send(p.to, { ...p.msg, live: [...p.msg.live], hop: p.hop })
            return ctx.setTimer('regen-ack', settings.ackTimeoutMs)
          }
          s.regenPending = undefined
          adoptView(
            s.view.filter((m) => m !== p.to),
            ctx,
          )
          forwardRegen(p.msg, ctx)
        } else if (key === 'lost') {
          if (hasToken()) return
          startRegen(ctx)
        }
      },

      onMessage(from, raw, ctx) {
        const m = parseMessage(raw)
        if (typeof m === 'string') return ctx.emit({ type: 'ignored', from, reason: m })
        if (from === self || !ctx.peers.includes(from)) {
          return ctx.emit({ type: 'ignored', from, reason: 'not a member' })
        }
        switch (m.type) {
          case 'token':
            return onToken(from, m, ctx)
          case 'ack':
            if (s.pending !== undefined && s.pending.to === from && s.pending.pass === m.pass) {
              ctx.cancelTimer('ack')
              s.lastCommit = { to: from, pass: m.pass }
              s.pending = undefined
              ctx.send(from, { type: 'commit', pass: m.pass })
              ctx.setTimer('lost', s.lostMs)
            } else if (
              s.lastCommit !== undefined &&
              s.lastCommit.to === from &&
              s.lastCommit.pass === m.pass
            ) {
              ctx.send(from, { type: 'commit', pass: m.pass }) // our COMMIT was lost
            } else ctx.emit({ type: 'ignored', from, reason: 'ack of a pass given up' })
            return
          case 'commit': {
            if (s.incoming === undefined || s.incoming.from !== from || s.incoming.pass !== m.pass)
              return
            ctx.cancelTimer('commit')
            const { state } = s.incoming
            s.incoming = undefined
            if (s.stopped !== undefined) liftAbove(state, s.stopped, ctx)
            s.stopped = undefined
            if (state.generation < s.floor) {
              destroy(state.generation, ctx) // a regeneration went by in between
              return ctx.setTimer('lost', s.lostMs)
            }
            return becomeHolder(state, ctx)
          }
          case 'regen':
            return onRegen(from, m, ctx)
          case 'regen-ack':
            if (
              s.regenPending !== undefined &&
              s.regenPending.to === from &&
              s.regenPending.hop === m.hop
            ) {
              ctx.cancelTimer('regen-ack')
              s.regenPending = undefined
            }
            return
        }
      },
    }
  }
  return withLockFeatures(factory, ['views'])
}
