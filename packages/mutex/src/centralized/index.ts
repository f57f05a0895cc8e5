/**
 * The centralized mutex: one coordinator keeps a FIFO queue per named resource; a client sends
 * REQUEST, the coordinator answers GRANT when the resource is free, the client sends RELEASE when
 * it leaves: 3 messages per use (none when the client is the coordinator). When the resource is
 * taken, `whenBusy: 'queue'` answers nothing until it is free; `'deny'` answers DENIED, and the
 * client retries with exponential backoff and jitter; no answer at all within `answerTimeoutMs`
 * means the coordinator is unreachable (`coordinator-unreachable`), and the request waits for a new
 * coordinator.
 *
 * Fencing tokens: token = term * 2^32 + counter, at least one above the last token of the resource,
 * which the coordinator writes to stable storage before the GRANT leaves. So tokens increase
 * across grants, across a restart of the coordinator (unless its disk is lost), and across a change
 * of coordinator (a higher term).
 *
 * Leases (`leaseMs`): a GRANT gives the holder `leaseMs` from its arrival; the holder renews every
 * `renewEveryMs`, and counts a renewal from when it sent it. The coordinator counts `leaseMs +
 * maxDelayMs` from the GRANT or renewal it handled, so its count ends after the holder's as long
 * as no message takes longer than `maxDelayMs`. A holder whose lease runs out emits `lease-lost`
 * and then `released`: it holds nothing from then on, and a later local `release` does nothing.
 *
 * Rules when the coordinator changes (request `{ type: 'coordinator', id, term }`, as an election
 * sends through wiring) or restarts:
 * 1. Terms only go up: a change to an older term, or to another node in the same term, is ignored
 *    (`ignored` event); the current term and coordinator are kept in stable storage.
 * 2. The coordinator of the old term, if it is this node, forgets its queue and holders.
 * 3. Every client sends its waiting REQUESTs again, at once, to the new coordinator (in resource
 *    order; the new queue follows the order they arrive in). A holder goes on renewing, now with
 *    the new coordinator.
 * 4. The new coordinator does not know who holds what: it broadcasts RECOVER (with its term and
 *    incarnation) and grants nothing until every member answered with a SYNC (what it holds, with
 *    tokens, and what it waits for), or, with leases, until `leaseMs + maxDelayMs` passed, the
 *    longest a lease of an earlier coordinator can last. A holder's SYNC makes it the holder at the
 *    new coordinator, which renews its lease and grants the resource to no one else until it is
 *    released or its lease expires. Only a SYNC that answers this incarnation's RECOVER counts;
 *    any other SYNC is answered with RECOVER (its content may be stale).
 * 5. Messages of an older term are ignored by everyone (GRANT, DENIED, renewals of a deposed
 *    coordinator too); their sender is told the newer term and coordinator (NEWER). A message to
 *    this node of a newer term means its sender knows this node coordinates that term: it takes
 *    over (rule 4) before handling it.
 * 6. A claim that comes after the new coordinator already granted the resource in its term is
 *    answered REVOKED: the client emits `lease-lost` (reason `revoked`) and `released`.
 * 7. A coordinator that restarts (its storage kept) is a new incarnation of the same term, and
 *    rule 4 holds. A GRANT of an earlier incarnation that arrives after the RECOVER is ignored
 *    (the request it answered is in the SYNC). A member that restarts sends a SYNC of no
 *    incarnation, which the coordinator answers with RECOVER, so that a recovering coordinator
 *    does not wait for it forever.
 *
 * Not tolerated: a lost disk on the coordinator (tokens start over); without leases, a holder
 * that crashes (the resource stays taken) and a member that stays down during a change (no grant
 * until it comes back); a deposed coordinator that restarts while every node that knows the newer
 * term is down (it grants under its old term, with lower tokens, until it hears of the newer
 * term); with leases, a deposed coordinator that keeps renewing for clients that have not heard of
 * the new term (a partition), or a message slower than `maxDelayMs`.
 */
import { compareNodeIds, isNodeId, type NodeId, type Protocol } from '@sd/transport'
import { DEFAULT_RESOURCE, type MutexRequest } from '../contract.js'
import { InvalidArgumentError } from '../errors.js'
import { ClientRole } from './client.js'
import { CoordinatorRole } from './coordinator.js'
import type { CentralizedEvent } from './events.js'
import { type CentralizedMessage, parseMessage } from './messages.js'
import type { CCtx, Node } from './node.js'
import { type CentralizedOptions, MAX_TERM, settingsOf, TOKENS_PER_TERM } from './options.js'

export type { CentralizedEvent } from './events.js'
export type { CentralizedMessage } from './messages.js'
export type { CentralizedOptions } from './options.js'

/** Moves the coordinator (what an election composed on the node sends through wiring). */
export interface CoordinatorRequest {
  type: 'coordinator'
  id: NodeId
  term: number
}

export type CentralizedRequest = MutexRequest | CoordinatorRequest

const TO_COORDINATOR = new Set(['request', 'release', 'renew', 'sync'])

/** A centralized mutex protocol for one node; validates `options` at once (`ERR_INVALID_ARGUMENT`). */
export function centralized(
  options?: CentralizedOptions,
): (self: NodeId) => Protocol<CentralizedMessage, CentralizedRequest, CentralizedEvent> {
  const settings = settingsOf(options)
  return () => {
    let coord: CoordinatorRole | undefined
    let client: ClientRole
    /** The coordinator's incarnation as told by its RECOVER (within the current term). */
    let coordinatorEpoch = 0
    const node: Node & { term: number; coordinator: NodeId; epoch: number } = {
      settings,
      term: settings.term,
      coordinator: settings.coordinator ?? '',
      epoch: 0,
      toCoordinator(msg, ctx) {
        if (node.coordinator === ctx.self) coordinatorGets(ctx.self, msg, ctx)
        else ctx.send(node.coordinator, msg)
      },
      toClient(to, msg, ctx) {
        if (to === ctx.self) client.onMessage(to, msg, ctx)
        else ctx.send(to, msg)
      },
    }

    const coordinatorGets = (from: NodeId, msg: CentralizedMessage, ctx: CCtx) => {
      if (coord === undefined) {
        ctx.emit({
          type: 'ignored',
          from,
          reason: `${msg.type} to a node that does not coordinate`,
        })
      } else coord.onMessage(from, msg, ctx)
    }

    /** Rule 4: a coordinator that does not know who holds what asks everyone (RECOVER). */
    const becomeCoordinator = (recovering: boolean, ctx: CCtx) => {
      coord = new CoordinatorRole(node, recovering, ctx)
      coordinatorEpoch = node.epoch
      if (!recovering) return
      ctx.broadcast({ type: 'recover', term: node.term, epoch: node.epoch })
      client.sync(node.epoch, ctx)
    }

    const change = (id: NodeId, term: number, ctx: CCtx, from: NodeId): boolean => {
      if (id !== ctx.self && !ctx.peers.includes(id)) {
        ctx.emit({
          type: 'ignored',
          from,
          reason: `coordinator ${JSON.stringify(id)} is not a member`,
        })
        return false
      }
      if (term < node.term || (term === node.term && id !== node.coordinator)) {
        ctx.emit({
          type: 'ignored',
          from,
          reason: `coordinator ${JSON.stringify(id)} of term ${term}, while ${JSON.stringify(node.coordinator)} coordinates term ${node.term}`,
        })
        return false
      }
      if (term === node.term) return true
      ctx.storage.set('term', term)
      ctx.storage.set('coordinator', id)
      coord?.stop(ctx)
      coord = undefined
      node.term = term
      node.coordinator = id
      coordinatorEpoch = 0
      ctx.emit({ type: 'coordinator-changed', coordinator: id, term })
      if (id === ctx.self) becomeCoordinator(true, ctx)
      else client.coordinatorChanged(ctx)
      return true
    }

    return {
      start(ctx) {
        const boots = ((ctx.storage.get('boots') as number | undefined) ?? 0) + 1
        ctx.storage.set('boots', boots)
        node.epoch = boots
        client = new ClientRole(node, boots * TOKENS_PER_TERM)
        const term = ctx.storage.get('term')
        const stored = ctx.storage.get('coordinator')
        if (typeof term === 'number' && isNodeId(stored)) {
          node.term = term
          node.coordinator = stored
        } else if (settings.coordinator === undefined) {
          node.coordinator = [ctx.self, ...ctx.peers].sort(compareNodeIds)[0]!
        } else if (settings.coordinator !== ctx.self && !ctx.peers.includes(settings.coordinator)) {
          throw new InvalidArgumentError(
            `centralized: coordinator ${JSON.stringify(settings.coordinator)} is not a member (${[ctx.self, ...ctx.peers].join(', ')})`,
          )
        }
        if (node.coordinator === ctx.self) becomeCoordinator(boots > 1, ctx)
        else if (boots > 1) client.sync(0, ctx) // rule 7: asks the coordinator for RECOVER
      },

      onRequest(req, ctx) {
        const r = req as Partial<Record<string, unknown>> | null
        const resource = r?.resource ?? DEFAULT_RESOURCE
        if (r?.type === 'coordinator') {
          if (
            !isNodeId(r.id) ||
            !Number.isSafeInteger(r.term) ||
            (r.term as number) < 0 ||
            (r.term as number) > MAX_TERM
          ) {
            ctx.emit({ type: 'ignored', from: ctx.self, reason: `malformed coordinator request` })
          } else change(r.id, r.term as number, ctx, ctx.self)
        } else if (
          (r?.type === 'acquire' || r?.type === 'release') &&
          typeof resource === 'string'
        ) {
          if (r.type === 'acquire') client.acquire(resource, ctx)
          else client.release(resource, ctx)
        } else {
          ctx.emit({ type: 'ignored', from: ctx.self, reason: 'malformed request' })
        }
      },

      onMessage(from, raw, ctx) {
        const msg = parseMessage(raw)
        if (typeof msg === 'string') {
          ctx.emit({ type: 'ignored', from, reason: msg })
          return
        }
        if (msg.term < node.term) {
          // Rule 5: out of date; tell the sender who coordinates now.
          ctx.emit({
            type: 'ignored',
            from,
            reason: `${msg.type} of term ${msg.term} (now ${node.term})`,
          })
          if (msg.type !== 'newer') {
            ctx.send(from, { type: 'newer', term: node.term, coordinator: node.coordinator })
          }
          return
        }
        if (msg.type === 'newer') {
          if (msg.term > node.term) change(msg.coordinator, msg.term, ctx, from)
          return
        }
        if (msg.type === 'recover') {
          if (msg.term > node.term && !change(from, msg.term, ctx, from)) return
          if (from !== node.coordinator) {
            ctx.emit({
              type: 'ignored',
              from,
              reason: `recover from a node that does not coordinate term ${msg.term}`,
            })
            return
          }
          // Rule 7: GRANTs of its incarnations before this one are void from now on.
          if (msg.epoch > coordinatorEpoch) {
            coordinatorEpoch = msg.epoch
            client.sync(msg.epoch, ctx)
          }
          return
        }
        if (TO_COORDINATOR.has(msg.type)) {
          // Rule 5: the sender knows this node coordinates a newer term.
          if (msg.term > node.term && !change(ctx.self, msg.term, ctx, from)) return
          coordinatorGets(from, msg, ctx)
          return
        }
        if (msg.term !== node.term || from !== node.coordinator) {
          ctx.emit({
            type: 'ignored',
            from,
            reason: `${msg.type} from a node that does not coordinate term ${msg.term}`,
          })
          return
        }
        if (msg.type === 'grant' && msg.epoch < coordinatorEpoch) {
          ctx.emit({ type: 'ignored', from, reason: 'grant sent before the coordinator restarted' })
          return
        }
        client.onMessage(from, msg, ctx)
      },

      onTimer(key, ctx) {
        if (coord?.onTimer(key, ctx)) return
        client.onTimer(key, ctx)
      },
    }
  }
}
