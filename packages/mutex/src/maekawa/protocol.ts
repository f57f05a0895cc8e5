import { LamportClock } from '@sd/clocks'
import type { Ctx, NodeId, ProtocolFactory } from '@sd/transport'
import { DEFAULT_RESOURCE, type MutexRequest, resourceOf } from '../contract.js'
import { idMap, plainCopy } from '../snapshot.js'
import { Arbiter } from './arbiter.js'
import type { MaekawaEvent } from './events.js'
import { type MaekawaMessage, parseMessage, type Unstamped } from './messages.js'
import { type MaekawaOptions, resolveOptions } from './options.js'
import { gridQuorum } from './quorum.js'

/** What every handler and helper is handed (never kept). */
export type MaekawaCtx = Ctx<MaekawaMessage, MaekawaEvent>

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
 * A crashed quorum member blocks every requester whose quorum it is in.
 */
export function maekawa(
  options: MaekawaOptions = {},
): ProtocolFactory<MaekawaMessage, MutexRequest, MaekawaEvent> {
  resolveOptions(options)
  return (self) => {
    const clock = new LamportClock({ pid: self })
    let quorum: NodeId[] = [self]
    // Messages to self are handled after the current handler's own changes, in order.
    const local: Array<Unstamped> = []
    const post = (to: NodeId, msg: Unstamped, ctx: MaekawaCtx) => {
      if (to === self) local.push(msg)
      else ctx.send(to, { ...msg, time: clock.send() })
    }
    const arbiter = new Arbiter(post)

    let state: 'idle' | 'wanting' | 'held' = 'idle'
    let req = 0
    let fence = 0
    let queued = 0
    let gotFailed = false
    const votes = new Map<NodeId, number>()
    /** Members that asked for their vote back during the current request. */
    const inquiries = new Set<NodeId>()

    const start = (ctx: MaekawaCtx) => {
      req = clock.tick()
      state = 'wanting'
      gotFailed = false
      votes.clear()
      inquiries.clear()
      for (const m of quorum) post(m, { type: 'request', req, by: self }, ctx)
    }

    const giveBack = (to: NodeId, ctx: MaekawaCtx) => {
      votes.delete(to)
      ctx.emit({ type: 'relinquished', to })
      post(to, { type: 'relinquish', req, by: self }, ctx)
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
    const asRequester = (from: NodeId, m: Unstamped, ctx: MaekawaCtx): string | undefined => {
      if (m.by !== self) return `${m.type} about another node's request`
      if (m.req < req || (m.req === req && state === 'idle')) return undefined // late, after the fact
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
        fence = Math.max(...votes.values()) + 1
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
      const ref = { req: m.req, by: m.by }
      if (m.type === 'request') {
        if (m.by !== from) problem = 'request on behalf of another'
        else arbiter.request(ref, ctx)
      } else if (m.type === 'relinquish') {
        if (m.by !== from || !arbiter.relinquish(ref, ctx))
          problem = 'relinquish of no vote of mine'
      } else if (m.type === 'release') {
        if (m.by !== from || !arbiter.release(ref, m.fence, ctx)) {
          problem = 'release of no vote of mine'
        }
      } else problem = asRequester(from, m, ctx)
      if (problem !== undefined) ctx.emit({ type: 'ignored', from, reason: problem })
    }

    const drain = (ctx: MaekawaCtx) => {
      for (let m = local.shift(); m !== undefined; m = local.shift()) handle(self, m, ctx)
    }

    return {
      snapshot: () => ({
        clock: clock.time,
        // Sent to in this order, each message stamped one later: the order counts.
        quorum: [...quorum],
        state,
        req,
        fence,
        queued,
        gotFailed,
        votes: idMap(votes, (f) => f),
        // Given back in this order (each RELINQUISH stamped one later): the order counts.
        inquiries: [...inquiries],
        local: local.map(plainCopy), // drained by every handler: empty between steps
        arbiter: arbiter.snapshot(),
      }),

      start(ctx) {
        quorum = gridQuorum([self, ...ctx.peers], self)
        ctx.emit({ type: 'quorum', members: [...quorum] })
      },

      onRequest(r, ctx) {
        // Checked, not trusted: requests come from application code, typed or not.
        const loose: { type?: unknown } | null | undefined = r
        const kind = loose?.type
        if (kind !== 'acquire' && kind !== 'release') {
          return ctx.emit({ type: 'ignored', from: self, reason: 'unknown request' })
        }
        if (resourceOf(r) !== DEFAULT_RESOURCE) {
          return ctx.emit({
            type: 'ignored',
            from: self,
            reason: `only ${DEFAULT_RESOURCE} is managed`,
          })
        }
        if (kind === 'acquire') {
          if (state === 'idle') start(ctx)
          else queued++
        } else {
          if (state !== 'held')
            return ctx.emit({ type: 'ignored', from: self, reason: 'release outside the section' })
          state = 'idle'
          ctx.emit({ type: 'released', resource: DEFAULT_RESOURCE, token: fence })
          for (const m of quorum) post(m, { type: 'release', req, by: self, fence }, ctx)
          if (queued > 0) {
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
}
