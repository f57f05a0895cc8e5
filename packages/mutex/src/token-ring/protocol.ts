import { type Ctx, type NodeId, type ProtocolFactory, sortNodeIds } from '@sd/transport'
import { DEFAULT_RESOURCE, type MutexRequest, resourceOf } from '../contract.js'
import type { TokenRingEvent } from './events.js'
import {
  GENERATION_UNIT,
  parseMessage,
  type TokenRingMessage,
  type TokenState,
} from './messages.js'
import { resolveOptions, type TokenRingOptions } from './options.js'
import { compareElection, sameMembers, successorOf } from './ring.js'

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
 * Not tolerated: partitions (each side regenerates its own token), and a live holder inside the
 * section that a regeneration skips because all its ACKs were lost (`retries` + 1 in a row).
 */
export function tokenRing(
  options: TokenRingOptions = {},
): ProtocolFactory<TokenRingMessage, MutexRequest, TokenRingEvent> {
  const settings = resolveOptions(options)
  return (self) => {
    let view: NodeId[] = [self]
    let lostMs = 0
    /** The token, when this node holds it and may use it. */
    let token: TokenState | undefined
    let inSection = false
    let entryToken = 0
    let wants = 0
    let passSeq = 0
    let hopSeq = 0
    /** A pass sent and not yet acknowledged: the token is neither here nor there. */
    let pending: { to: NodeId; pass: number; state: TokenState; tries: number } | undefined
    let lastCommit: { to: NodeId; pass: number } | undefined
    /** A token received and acknowledged, not yet committed by its sender. */
    let incoming: { from: NodeId; pass: number; state: TokenState; tries: number } | undefined
    let lastTaken: { from: NodeId; pass: number } | undefined
    /** Tokens of a generation below this are destroyed on sight. */
    let floor = 0
    /** Highest generation of a token this node accepted. */
    let tokenGen = -1
    /** Highest election started or forwarded here. */
    let best: { generation: number; initiator: NodeId } | undefined
    /** Elections stopped while a token was arriving here, applied if it is committed to us. */
    let stopped: { generation: number; live: NodeId[] } | undefined
    let peers: readonly NodeId[] = []
    let regenPending:
      | { to: NodeId; hop: number; msg: Omit<RegenMessage, 'hop'>; tries: number }
      | undefined

    const hasToken = () => token !== undefined || pending !== undefined || incoming !== undefined

    const adoptView = (members: NodeId[], ctx: TokenRingCtx) => {
      if (sameMembers(members, view)) return
      view = [...members]
      ctx.emit({ type: 'ring-changed', members: [...view] })
    }

    const enter = (ctx: TokenRingCtx) => {
      const t = token!
      wants--
      t.count++
      inSection = true
      entryToken = t.generation * GENERATION_UNIT + t.count
      ctx.emit({ type: 'acquired', resource: DEFAULT_RESOURCE, token: entryToken })
    }

    const sendPass = (ctx: TokenRingCtx) => {
      const p = pending!
      ctx.send(p.to, { type: 'token', pass: p.pass, ...p.state, members: [...p.state.members] })
      ctx.setTimer('ack', settings.ackTimeoutMs)
    }

    const passOn = (ctx: TokenRingCtx) => {
      const state = token!
      const to = successorOf(state.members, self)
      if (to === undefined) {
        if (wants > 0) enter(ctx) // alone in the ring: keep the token
        return
      }
      token = undefined
      pending = { to, pass: ++passSeq, state, tries: 0 }
      sendPass(ctx)
    }

    const becomeHolder = (state: TokenState, ctx: TokenRingCtx) => {
      token = state
      tokenGen = Math.max(tokenGen, state.generation)
      floor = Math.max(floor, state.generation)
      adoptView(state.members, ctx)
      ctx.cancelTimer('lost')
      if (wants > 0) enter(ctx)
      else ctx.setTimer('pass', settings.holdMs)
    }

    const destroy = (generation: number, ctx: TokenRingCtx) =>
      ctx.emit({ type: 'token-destroyed', generation })

    const forwardRegen = (msg: Omit<RegenMessage, 'hop'>, ctx: TokenRingCtx) => {
      const to = successorOf(view, self)
      if (to === undefined) {
        if (msg.initiator === self) onRegen(self, { ...msg, hop: 0 }, ctx)
        return
      }
      regenPending = { to, hop: ++hopSeq, msg, tries: 0 }
      ctx.send(to, { ...msg, live: [...msg.live], hop: regenPending.hop })
      ctx.setTimer('regen-ack', settings.ackTimeoutMs)
    }

    const startRegen = (ctx: TokenRingCtx) => {
      const generation = Math.max(floor, tokenGen, best?.generation ?? 0) + 1
      best = { generation, initiator: self }
      floor = generation
      ctx.setTimer('lost', lostMs) // try again if this one fails
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
        tokenGen = Math.max(tokenGen, m.generation)
        floor = Math.max(floor, m.generation)
      }
      const missing = m.live.filter(
        (id) => !t.members.includes(id) && (id === self || peers.includes(id)),
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
        const mine = best !== undefined && compareElection(best, m) === 0
        if (!mine || hasToken() || m.generation <= tokenGen) return
        const members = sortNodeIds(new Set(m.live))
        ctx.emit({ type: 'token-regenerated', generation: m.generation })
        becomeHolder({ generation: m.generation, count: 0, members }, ctx)
        return
      }
      // A node taken for dead that is running an election is alive: back into the ring it goes.
      if (!view.includes(m.initiator)) adoptView(sortNodeIds([...view, m.initiator]), ctx)
      if (token !== undefined) return liftAbove(token, m, ctx)
      if (incoming !== undefined) {
        // Arriving here: the same once the sender commits it to us.
        stopped = {
          generation: Math.max(stopped?.generation ?? 0, m.generation),
          live: [...(stopped?.live ?? []), ...m.live],
        }
        return
      }
      if (hasToken()) return // being handed over: this election stops
      if (m.generation <= tokenGen) return // stale: a token of that generation exists
      if (best !== undefined && compareElection(m, best) <= 0) return // beaten or a duplicate
      best = { generation: m.generation, initiator: m.initiator }
      floor = Math.max(floor, m.generation)
      ctx.setTimer('lost', lostMs) // a regeneration is under way: do not start another
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
      if (incoming !== undefined && incoming.from === from && incoming.pass === m.pass) return ack()
      if (lastTaken !== undefined && lastTaken.from === from && lastTaken.pass === m.pass)
        return ack()
      lastTaken = { from, pass: m.pass }
      ack() // acknowledged even when destroyed, so the sender stops resending it
      const state: TokenState = {
        generation: m.generation,
        count: m.count,
        members: sortNodeIds(m.members),
      }
      if (state.generation < floor || hasToken()) return destroy(state.generation, ctx)
      incoming = { from, pass: m.pass, state, tries: 0 }
      ctx.cancelTimer('lost')
      ctx.setTimer('commit', settings.ackTimeoutMs)
    }

    return {
      start(ctx) {
        peers = ctx.peers
        view = sortNodeIds([self, ...ctx.peers])
        lostMs = settings.lostTokenTimeoutMs(view.length)
        // A restarted node must not create a second token.
        const restarted = ctx.storage.get('started') === true
        if (!restarted) ctx.storage.set('started', true)
        if (!restarted && view[0] === self) {
          becomeHolder({ generation: 0, count: 0, members: [...view] }, ctx)
        } else ctx.setTimer('lost', lostMs)
      },

      onRequest(req, ctx) {
        const r: { type?: unknown } = req // checked: application code may pass anything
        if (r.type !== 'acquire' && r.type !== 'release') {
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
          wants++
          if (token !== undefined && !inSection) {
            ctx.cancelTimer('pass')
            enter(ctx)
          }
          return
        }
        if (!inSection)
          return ctx.emit({ type: 'ignored', from: self, reason: 'release outside the section' })
        inSection = false
        ctx.emit({ type: 'released', resource: DEFAULT_RESOURCE, token: entryToken })
        passOn(ctx)
      },

      onTimer(key, ctx) {
        if (key === 'pass') {
          if (token === undefined || inSection) return
          if (wants > 0) enter(ctx)
          else passOn(ctx)
        } else if (key === 'ack') {
          if (pending === undefined) return
          if (pending.tries < settings.retries) {
            pending.tries++
            return sendPass(ctx)
          }
          // No ACK: the successor crashed. Skip it, and tell the ring through the token.
          const { state, to } = pending
          pending = undefined
          state.members = state.members.filter((m) => m !== to)
          token = state
          adoptView(state.members, ctx)
          if (wants > 0) enter(ctx)
          else passOn(ctx)
        } else if (key === 'commit') {
          if (incoming === undefined) return
          if (incoming.tries < settings.retries) {
            incoming.tries++
            ctx.send(incoming.from, { type: 'ack', pass: incoming.pass })
            return ctx.setTimer('commit', settings.ackTimeoutMs)
          }
          // The sender gave us up (or died before committing): this copy is not ours.
          destroy(incoming.state.generation, ctx)
          incoming = undefined
          stopped = undefined
          ctx.setTimer('lost', lostMs)
        } else if (key === 'regen-ack') {
          if (regenPending === undefined) return
          const p = regenPending
          if (p.tries < settings.retries) {
            p.tries++
            ctx.send(p.to, { ...p.msg, live: [...p.msg.live], hop: p.hop })
            return ctx.setTimer('regen-ack', settings.ackTimeoutMs)
          }
          regenPending = undefined
          adoptView(
            view.filter((m) => m !== p.to),
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
            if (pending !== undefined && pending.to === from && pending.pass === m.pass) {
              ctx.cancelTimer('ack')
              lastCommit = { to: from, pass: m.pass }
              pending = undefined
              ctx.send(from, { type: 'commit', pass: m.pass })
              ctx.setTimer('lost', lostMs)
            } else if (
              lastCommit !== undefined &&
              lastCommit.to === from &&
              lastCommit.pass === m.pass
            ) {
              ctx.send(from, { type: 'commit', pass: m.pass }) // our COMMIT was lost
            } else ctx.emit({ type: 'ignored', from, reason: 'ack of a pass given up' })
            return
          case 'commit': {
            if (incoming === undefined || incoming.from !== from || incoming.pass !== m.pass) return
            ctx.cancelTimer('commit')
            const { state } = incoming
            incoming = undefined
            if (stopped !== undefined) liftAbove(state, stopped, ctx)
            stopped = undefined
            if (state.generation < floor) {
              destroy(state.generation, ctx) // a regeneration went by in between
              return ctx.setTimer('lost', lostMs)
            }
            return becomeHolder(state, ctx)
          }
          case 'regen':
            return onRegen(from, m, ctx)
          case 'regen-ack':
            if (
              regenPending !== undefined &&
              regenPending.to === from &&
              regenPending.hop === m.hop
            ) {
              ctx.cancelTimer('regen-ack')
              regenPending = undefined
            }
            return
        }
      },
    }
  }
}
