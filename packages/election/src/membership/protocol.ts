import { isNodeId, type NodeId, type ProtocolFactory, sortNodeIds } from '@sd/transport'
import type { MembershipEvent, MembershipRequest } from './events.js'
import { admissionOf, answerMemberJoin } from './generation.js'
import { answerFetch, fetchMissing, offerView, onAccept, onPrepare } from './installing.js'
import {
  applyChange,
  enqueue,
  leaveOffice,
  onAccepted,
  onPromise,
  retryPhase,
  takeOffice,
} from './leading.js'
import { type Change, type MembershipMessage, parseMessage } from './messages.js'
import {
  type AgreedMembershipOptions,
  type AgreedMembershipSettings,
  resolveOptions,
} from './options.js'
import {
  emptyDurable,
  type MembershipCtx,
  type MembershipSnapshot,
  MembershipState,
  RETRY,
  readDurable,
  restoreMembership,
  snapshotMembership,
  writeDurable,
} from './state.js'
import { viewEvent } from './view.js'

/**
 * The agreed view of the group, changed through the election's leader (wire the election's
 * `leader` / `leader-lost` events to this protocol's requests of the same shape).
 *
 * - One change at a time (join, leave, remove of one member), so any two consecutive views have
 *   overlapping majorities. View v + 1 is decided among the members of view v as one Paxos
 *   instance whose ballots are the leader's (term, id): the leader first gathers promises from a
 *   majority of view v (and re-proposes a view one of them accepted, which may have been
 *   committed), then commits v + 1 once a majority of view v accepted it, and announces it.
 *   Promises and acceptances are stored before they are answered.
 * - So no two nodes ever install different views of one number, even with two leaders at once
 *   (a stale one and a new one), and no view commits on a side without a majority of the view
 *   before it.
 * - Every node installs views in order (it asks for one it missed) and emits `view` for each.
 */
export function agreedMembership(
  options: AgreedMembershipOptions,
): ProtocolFactory<MembershipMessage, MembershipRequest, MembershipEvent> {
  return agreedMembershipWith(resolveOptions(options))
}

/** The protocol with settings already resolved (the tests change the quorum through it). */
export function agreedMembershipWith(
  settings: AgreedMembershipSettings,
): ProtocolFactory<MembershipMessage, MembershipRequest, MembershipEvent> {
  return (self) => {
    const s = new MembershipState(self, settings)
    /** The stored part is read at every step: it is the runtime's, also after a restore. */
    const load = (ctx: MembershipCtx) => {
      s.durable = readDurable(ctx) ?? emptyDurable()
    }
    /** A change goes to the leader (handled here when this node leads). */
    const route = (change: Change, ctx: MembershipCtx) => {
      const current = s.current()
      if (s.lead !== undefined) {
        if (current !== undefined && applyChange(current, change) === undefined) {
          // Already done: tell the subject (a joiner or leaver that missed the announcement); a
          // joiner, the view that admitted it (the only first view it takes).
          const record =
            change.op === 'join' ? (admissionOf(s.durable.views, change.id) ?? current) : current
          if (change.id !== self) ctx.send(change.id, { type: 'install', record })
          return
        }
        enqueue(s, change, ctx)
      } else if (s.leader !== undefined && s.leader.by !== self) {
        const { address, generation } = change
        ctx.send(s.leader.by, {
          type: 'change',
          op: change.op,
          id: change.id,
          ...(address === undefined ? {} : { address }),
          ...(generation === undefined ? {} : { generation }),
        })
      }
    }
    const retry = (ctx: MembershipCtx) => {
      const current = s.current()
      if (current === undefined) {
        const seeds = settings.seeds.filter((id) => id !== self)
        if (seeds.length > 0) {
          const { address } = settings
          const { generation } = s.durable
          ctx.send(seeds[s.seedTurn % seeds.length]!, {
            type: 'join',
            ...(address === undefined ? {} : { address }),
            ...(generation === undefined ? {} : { generation }),
          })
          s.seedTurn = (s.seedTurn + 1) % seeds.length
        }
      }
      if (s.durable.leaving) route({ op: 'leave', id: self }, ctx)
      for (const id of s.durable.removals) route({ op: 'remove', id }, ctx)
      fetchMissing(s, ctx)
      retryPhase(s, ctx)
    }
    const ignore = (from: NodeId, reason: string, ctx: MembershipCtx) =>
      ctx.emit({ type: 'ignored', from, reason })

    return {
      snapshot: () => snapshotMembership(s),
      restore: (snap: MembershipSnapshot) => restoreMembership(s, snap),
      start(ctx) {
        load(ctx)
        if (s.durable.views.length === 0 && settings.founders.includes(self)) {
          const founders = settings.founders
          s.durable.views.push({ view: 1, members: founders, joined: founders, left: [] })
          writeDurable(s.durable, ctx)
        } else if (s.durable.views.length === 0 && s.durable.generation === undefined) {
          // A joiner's first start with this state: its incarnation (see generation.ts).
          s.durable.generation = Math.max(0, Math.floor(ctx.now()))
          writeDurable(s.durable, ctx)
        }
        const current = s.current()
        // A (re)started member shows the view it is in, so what follows views knows it again.
        if (current !== undefined) ctx.emit(viewEvent(current))
        if (!s.out()) ctx.setTimer(RETRY, settings.retryMs)
      },
      onMessage(from, raw, ctx) {
        load(ctx)
        if (s.out()) return
        const msg = parseMessage(raw)
        if (typeof msg === 'string') return ignore(from, msg, ctx)
        if (from === self) return ignore(from, 'from itself', ctx)
        const current = s.current()
        switch (msg.type) {
          case 'join': {
            if (current === undefined) return
            const { address, generation } = msg
            if (current.members.includes(from)) {
              const answer = answerMemberJoin(s.durable.views, from, generation)
              if (answer === 'remove') route({ op: 'remove', id: from }, ctx)
              else if (answer !== undefined)
                ctx.send(from, { type: 'install', record: answer.send })
              return
            }
            route(
              {
                op: 'join',
                id: from,
                ...(address === undefined ? {} : { address }),
                ...(generation === undefined ? {} : { generation }),
              },
              ctx,
            )
            return
          }
          case 'change':
            if (current !== undefined) {
              const { op, id, address, generation } = msg
              const joining = op === 'join'
              route(
                {
                  op,
                  id,
                  ...(joining && address !== undefined ? { address } : {}),
                  ...(joining && generation !== undefined ? { generation } : {}),
                },
                ctx,
              )
            }
            return
          case 'prepare': {
            const promise = onPrepare(s, { term: msg.term, by: from }, ctx)
            if (promise !== undefined) ctx.send(from, promise)
            return
          }
          case 'promise':
            return onPromise(s, from, msg, ctx)
          case 'accept':
            if (onAccept(s, { term: msg.term, by: from }, msg.record, ctx)) {
              ctx.send(from, { type: 'accepted', term: msg.term, view: msg.record.view })
            }
            return
          case 'accepted':
            return onAccepted(s, from, msg, ctx)
          case 'install':
            return offerView(s, from, msg.record, ctx)
          case 'fetch':
            return answerFetch(s, from, msg.after, ctx)
        }
      },
      onTimer(key, ctx) {
        load(ctx)
        if (key !== RETRY) return
        if (s.notMember !== undefined) {
          if (s.leader?.by === self && s.leader.term === s.notMember) {
            ctx.emit({ type: 'not-member', term: s.notMember })
          }
          s.notMember = undefined
        }
        if (s.out()) return
        ctx.setTimer(RETRY, settings.retryMs)
        retry(ctx)
      },
      onRequest(req, ctx) {
        load(ctx)
        const type: unknown = req?.type
        if (
          req?.type === 'leader' &&
          req.leader === self &&
          (s.out() || s.current() === undefined)
        ) {
          // Only a member drives the view protocol: say so at the next tick (in a step of its
          // own, not inside the election's announcement), to be wired to the election's resign.
          s.notMember = req.term
          s.leader = { term: req.term, by: self }
          ctx.setTimer(RETRY, settings.retryMs)
          return
        }
        if (s.out()) return ignore(self, `${String(type)}: no longer a member`, ctx)
        const current = s.current()
        if (req.type === 'leader' && isNodeId(req.leader) && Number.isSafeInteger(req.term)) {
          s.leader = { term: req.term, by: req.leader }
          if (req.leader === self) takeOffice(s, req.term, ctx)
          else leaveOffice(s)
          retry(ctx)
        } else if (type === 'leader-lost') {
          s.leader = undefined
          leaveOffice(s)
        } else if (type === 'leave') {
          if (current === undefined) return ignore(self, 'leave: not a member yet', ctx)
          if (!s.durable.leaving) {
            s.durable.leaving = true
            writeDurable(s.durable, ctx)
          }
          route({ op: 'leave', id: self }, ctx)
        } else if (type === 'remove' && isNodeId((req as { id?: unknown }).id)) {
          const id = (req as { id: NodeId }).id
          if (!current?.members.includes(id)) return ignore(self, 'remove: not a member', ctx)
          if (!s.durable.removals.includes(id)) {
            s.durable.removals = sortNodeIds([...s.durable.removals, id])
            writeDurable(s.durable, ctx)
          }
          route({ op: 'remove', id }, ctx)
        } else ignore(self, 'malformed request', ctx)
      },
    }
  }
}
