// Over 450 lines: the module comment holds the rules (views included) the closure below follows
// in one place; view bookkeeping lives in views.ts.
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
 * Leases (`leaseMs`), all on `ctx.monotonic()` (a wall-clock step changes nothing): a REQUEST
 * carries when its copy left (`at`, the client's clock) and the GRANT echoes it; the holder's lease
 * runs `leaseMs` from that `at`, and from each renewal's `at` after it. The coordinator counts
 * `leaseMs + maxDelayMs` from the GRANT or renewal it handled, which is after the `at` it answers,
 * so its count ends after the holder's whatever the delays and pauses, as long as clocks run at
 * about one rate. A GRANT that comes after the lease it gives (it waited in the queue, or its
 * client was paused) is late (`grant-late`): the request goes again, and the coordinator answers a
 * holder's repeat with a fresh GRANT or queues it again. A holder whose lease runs out emits
 * `lease-lost` and then `released`; a renewal handled after its lease ended does not revive it.
 * Waiting requests are sent again every `resendEveryMs`, so a lost REQUEST or GRANT is recovered.

 * Rules when the coordinator changes (request `{ type: 'coordinator', id, term }`, as an election
 * sends through wiring; `electionToLock` maps the majority election's events) or restarts:
 * 0. A node grants and renews only while it coordinates the newest term it knows; with
 *    `leaderLease`, also only while the leader lease of that term (`{ type: 'coordinator-lease',
 *    term, until }`) is valid on `ctx.monotonic()` at that moment, so a leader that wakes from a
 *    pause finds its lease over before it acts, whatever order its backlog comes in; requests held
 *    back are served when a valid lease arrives. `{ type: 'coordinator-lost', term }` (its leader
 *    stepped down) ends its coordinator role at once (`coordinator-stopped`). A local GRANT passes
 *    the same term rules as one that came over the network.
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
 * Lock modes (the contract's `mode`, `permits`, `ifAvailable`, `steal`): the coordinator keeps a set
 * of holders per resource (one exclusive, or shared ones, or permit ones whose takes stay within
 * their common `of`), each with its own lease timer and renewals, and grants from its queue while
 * the next request fits, in the order of the `readers` policy (grant-order.ts). Every grant takes
 * the next token of the one stored counter. A request of another `of` than the resource's entries
 * is REFUSED (`limit-mismatch`); an `ifAvailable` one that cannot be granted at once too
 * (`unavailable`), and nothing waits. A `steal` goes ahead of every waiting request and revokes
 * every holder at once (STOLEN: `lease-lost`, reason `'stolen'`); it is granted once every victim
 * acknowledged (STOLEN-ACK, or its RELEASE) or, with leases, once the victim's lease can have run
 * out; STOLEN goes again every `resendEveryMs` meanwhile (steal.ts). STOLEN names the request it
 * answered, so a GRANT still on its way is given back instead of entered. A steal waiting across a
 * change or restart of coordinator is sent again with the other requests, still a steal, and
 * steals again from whoever the new coordinator finds holding; a victim's claim of a stolen token
 * is answered with STOLEN again. With `lockDelayMs`, an expired holder's share stays taken that
 * long. SYNC claims carry how they hold; a RELEASE too, so a late claim of a shared entry is
 * judged by its own token (shared entries end in any order).
 *
 * Views (`{ type: 'view', view, members }`, feature `'views'`; views.ts): the group is the
 * members of the installed view (view 0: the launch group). RECOVER and SYNC carry the view
 * number (none in view 0, so runs without views send what they always sent). A recovering
 * coordinator waits for the SYNCs of its view's members only, and a SYNC counts only when it
 * is of the coordinator's view: installing a view while recovering, it forgets the reports it
 * had and asks the new members (a joiner too); a member answers a RECOVER of a view it has not
 * installed once it installs it. The coordinator enters no request or SYNC of a node left out
 * and drops its waiting requests; without leases it releases its entries (`left-out`), with
 * leases it lets them run out. A node left out refuses acquires and drops its waiting ones
 * (`not-in-view`). Precondition: a view leaves out only nodes that crashed or left (released,
 * asking no more) before it is issued, since a recovery that ends without a left-out node's SYNC
 * cannot know what it held. The view is stored: a restart resumes in it.
 *
 * Query (`{ type: 'query', id }`, feature `'query'`): the client asks the coordinator (QUERY; a
 * local call when it is the coordinator), which answers with its holders and queues, its term and
 * whether it recovers, bounded (lock-state.ts); the client emits it as `lock-state`. Nothing is
 * kept and nothing sent again: a caller that hears nothing gives up on its own timer.
 *
 * Stored state (term, coordinator, boots, last token per resource) of the wrong shape is refused
 * with `StoredStateError` (ERR_STORED_STATE), never read as a default.
 *
 * Not tolerated: a lost disk on the coordinator (tokens start over); clocks whose rates differ by
 * more than the margin `maxDelayMs` leaves over a lease; without leases, a holder that crashes
 * (the resource stays taken) and a member that stays down during a change (no grant until it
 * comes back); without `leaderLease` (a coordinator moved by hand or by an election without
 * leases), a deposed coordinator that has not heard of the newer term: it grants and renews under
 * its old term, with lower tokens, until it does. A process paused between its last check of its
 * lease and its use of the resource acts on an old belief when it wakes: only the resource's check
 * of fencing tokens stops that (it must refuse a token below the largest it has seen).
 */
import {
  type Ctx,
  compareNodeIds,
  intIn,
  isNodeId,
  type NodeId,
  type Protocol,
  readStored,
  StoredStateError,
  storedShapes,
} from '@sd/transport'
import { DEFAULT_RESOURCE, type WithLockFeatures, withLockFeatures } from '../contract.js'
import { InvalidArgumentError } from '../errors.js'
import type { ViewInstall } from '../lamport/view.js'
import { orNull, type Snapshot } from '../snapshot.js'
import { ClientRole } from './client.js'
import { CoordinatorRole } from './coordinator.js'
import type { CentralizedEvent } from './events.js'
import { parseWant } from './kinds.js'
import { isQueryId } from './lock-state.js'
import { type CentralizedMessage, parseMessage } from './messages.js'
import type { Node } from './node.js'
import { type CentralizedOptions, MAX_TERM, resolveOptions, TOKENS_PER_TERM } from './options.js'
import type { CentralizedRequest } from './requests.js'
import { centralizedState } from './restore.js'
import { MemberView, parseViewRequest } from './views.js'

/** What every handler and helper of the centralized mutex is handed (never kept). */
export type CentralizedCtx = Ctx<CentralizedMessage, CentralizedEvent>

/** A request as it may come from untyped application code: every field is checked before use. */
type LooseRequest = {
  type?: unknown
  resource?: unknown
  mode?: unknown
  permits?: unknown
  ifAvailable?: unknown
  steal?: unknown
  id?: unknown
  term?: unknown
  until?: unknown
}

const isTerm = intIn(0, MAX_TERM)

const TERM_SHAPE = {
  expected: `an integer in [0, ${MAX_TERM}]`,
  is: isTerm,
}

const TO_COORDINATOR = new Set(['request', 'release', 'renew', 'sync', 'stolen-ack', 'query'])

/** The factory `centralized()` returns: one node's protocol, marked with its lock features. */
export type CentralizedFactory = WithLockFeatures<
  (self: NodeId) => Protocol<CentralizedMessage, CentralizedRequest, CentralizedEvent>
>

/**
 * A centralized mutex protocol for one node; validates `options` at once (`ERR_INVALID_ARGUMENT`).
 * It honours shared entries, permits, `ifAvailable` and `steal` (see the module comment).
 */
export function centralized(options?: CentralizedOptions): CentralizedFactory {
  const settings = resolveOptions(options)
  return withLockFeatures(centralizedNode(settings), [
    'shared',
    'permits',
    'ifAvailable',
    'steal',
    'query',
    'views',
  ])
}

function centralizedNode(
  settings: ReturnType<typeof resolveOptions>,
): (self: NodeId) => Protocol<CentralizedMessage, CentralizedRequest, CentralizedEvent> {
  return () => {
    let coord: CoordinatorRole | undefined
    let client: ClientRole
    /** The coordinator's incarnation as told by its RECOVER (within the current term). */
    let coordinatorEpoch = 0
    /** The newest leader lease this node was told of (`leaderLease` only). */
    let leaderLease: { term: number; until: number } | undefined
    /** The newest RECOVER of a view this node has not installed yet, answered once it does. */
    let pendingRecover: { from: NodeId; msg: CentralizedMessage & { type: 'recover' } } | undefined
    /** The view of the last RECOVER answered (a RECOVER of a newer view is answered again). */
    let syncedView = 0
    const node: Node & { term: number; coordinator: NodeId; epoch: number } = {
      settings,
      group: new MemberView(),
      term: settings.term,
      coordinator: settings.coordinator ?? '',
      epoch: 0,
      mayGrant(ctx) {
        if (coord === undefined || node.coordinator !== ctx.self) return false
        if (!settings.leaderLease) return true
        return leaderLease?.term === node.term && ctx.monotonic() < leaderLease.until
      },
      toCoordinator(msg, ctx) {
        if (node.coordinator === ctx.self) coordinatorGets(ctx.self, msg, ctx)
        else ctx.send(node.coordinator, msg)
      },
      toClient(to, msg, ctx) {
        // A local answer passes the same term rules as one that came over the network.
        if (to === ctx.self) clientGets(ctx.self, msg, ctx)
        else ctx.send(to, msg)
      },
    }

    /** Rule 5 for what a coordinator sends a client: only the coordinator of this term counts. */
    const clientGets = (from: NodeId, msg: CentralizedMessage, ctx: CentralizedCtx) => {
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
    }

    /** The leader stepped down: its coordinator role ends at once (queue and holders forgotten). */
    const coordinatorLost = (term: number, ctx: CentralizedCtx) => {
      if (term !== node.term || node.coordinator !== ctx.self || coord === undefined) return
      coord.stop(ctx)
      coord = undefined
      leaderLease = undefined
      ctx.emit({ type: 'coordinator-stopped', term })
    }

    const coordinatorLease = (term: number, until: number, ctx: CentralizedCtx) => {
      if (term < node.term || (leaderLease !== undefined && term < leaderLease.term)) {
        ctx.emit({
          type: 'ignored',
          from: ctx.self,
          reason: `leader lease of term ${term} (now ${node.term})`,
        })
        return
      }
      // Kept even before the `coordinator` request of its term arrives (wiring order).
      leaderLease = { term, until }
      if (node.mayGrant(ctx)) coord?.resume(ctx)
    }

    const coordinatorGets = (from: NodeId, msg: CentralizedMessage, ctx: CentralizedCtx) => {
      if (coord === undefined) {
        ctx.emit({
          type: 'ignored',
          from,
          reason: `${msg.type} to a node that does not coordinate`,
        })
      } else coord.onMessage(from, msg, ctx)
    }

    /** Rule 4: a coordinator that does not know who holds what asks everyone (RECOVER). */
    const becomeCoordinator = (recovering: boolean, ctx: CentralizedCtx) => {
      coord = new CoordinatorRole(node, recovering, ctx)
      coordinatorEpoch = node.epoch
      if (recovering) askMembers(ctx)
    }

    const askMembers = (ctx: CentralizedCtx) => {
      const recover = { type: 'recover' as const, term: node.term, epoch: node.epoch }
      if (node.group.view === 0) ctx.broadcast(recover)
      else
        for (const p of node.group.others(ctx)) ctx.send(p, { ...recover, view: node.group.view })
      syncedView = node.group.view
      client.sync(node.epoch, ctx)
    }

    /** A view request above this node's view (views.ts; the rules in this module's comment). */
    const installView = (next: ViewInstall, ctx: CentralizedCtx) => {
      node.group.install(next, ctx)
      if (!next.self) client.leftOut(ctx)
      if (coord?.viewInstalled(ctx)) askMembers(ctx)
      const due = pendingRecover
      if (due !== undefined && (due.msg.view ?? 0) <= next.view) {
        pendingRecover = undefined
        recover(due.from, due.msg, ctx)
      }
    }

    const recover = (
      from: NodeId,
      msg: CentralizedMessage & { type: 'recover' },
      ctx: CentralizedCtx,
    ) => {
      const view = msg.view ?? 0
      if (view > node.group.view) {
        // Answered once this node installs that view: its report must be of the same view.
        if (view >= (pendingRecover?.msg.view ?? 0)) pendingRecover = { from, msg }
        return
      }
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
      const again = msg.epoch === coordinatorEpoch && view > syncedView
      if (msg.epoch > coordinatorEpoch || again) {
        coordinatorEpoch = msg.epoch
        syncedView = view
        client.sync(msg.epoch, ctx)
      }
    }

    const change = (id: NodeId, term: number, ctx: CentralizedCtx, from: NodeId): boolean => {
      if (id !== ctx.self && !ctx.peers.includes(id) && !node.group.has(id, ctx)) {
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

    /** The node's volatile state (term and coordinator are also stored) as canonical plain data. */
    const snapshot = (): Snapshot => {
      const role: ClientRole | undefined = client // none before start
      return {
        term: node.term,
        coordinator: node.coordinator,
        epoch: node.epoch,
        coordinatorEpoch,
        // A lease `until` may be Infinity, which JSON has no number for.
        leaderLease: orNull(leaderLease, (l) => ({
          term: l.term,
          until: Number.isFinite(l.until) ? l.until : String(l.until),
        })),
        coordinatorRole: orNull(coord, (c) => c.snapshot()),
        group: node.group.snapshot(),
        pendingRecover: orNull(pendingRecover, (p) => ({ from: p.from, msg: { ...p.msg } })),
        syncedView,
        client: orNull(role, (c) => c.snapshot()),
      }
    }

    return {
      snapshot,

      restore(snapshot) {
        const s = centralizedState(snapshot)
        Object.assign(node, { term: s.term, coordinator: s.coordinator, epoch: s.epoch })
        ;({ coordinatorEpoch, leaderLease, pendingRecover, syncedView } = s)
        node.group.load(s.group)
        coord =
          s.coordinatorRole === null ? undefined : CoordinatorRole.restored(node, s.coordinatorRole)
        client = new ClientRole(node, 0) // its seq is the snapshot's
        if (s.client !== null) client.restore(s.client)
      },

      start(ctx) {
        // Stored values of the wrong shape throw StoredStateError: never read as a default.
        const boots = (readStored(ctx.storage, 'boots', storedShapes.count) ?? 0) + 1
        const term = readStored(ctx.storage, 'term', TERM_SHAPE)
        const stored = readStored(ctx.storage, 'coordinator', storedShapes.nodeId)
        if ((term === undefined) !== (stored === undefined)) {
          // Written together: one without the other is not a state this protocol leaves.
          const missing = term === undefined ? 'term' : 'coordinator'
          throw new StoredStateError(
            missing,
            `stored with ${missing === 'term' ? 'coordinator' : 'term'}`,
            undefined,
          )
        }
        ctx.storage.set('boots', boots)
        node.epoch = boots
        node.group.restore(ctx) // a restart resumes in the view installed last
        client = new ClientRole(node, boots * TOKENS_PER_TERM)
        if (term !== undefined && stored !== undefined) {
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
        const r: LooseRequest | null | undefined = req
        const resource = r?.resource ?? DEFAULT_RESOURCE
        const view = parseViewRequest(req, ctx.self)
        if (view !== undefined) {
          if (typeof view === 'string') ctx.emit({ type: 'ignored', from: ctx.self, reason: view })
          else if (view.view <= node.group.view) {
            const reason = `view ${view.view} is not above view ${node.group.view}`
            ctx.emit({ type: 'ignored', from: ctx.self, reason })
          } else installView(view, ctx)
        } else if (r?.type === 'coordinator') {
          if (!isNodeId(r.id) || !isTerm(r.term)) {
            ctx.emit({ type: 'ignored', from: ctx.self, reason: `malformed coordinator request` })
          } else change(r.id, r.term, ctx, ctx.self)
        } else if (r?.type === 'coordinator-lost') {
          if (!isTerm(r.term)) {
            ctx.emit({ type: 'ignored', from: ctx.self, reason: 'malformed coordinator-lost' })
          } else coordinatorLost(r.term, ctx)
        } else if (r?.type === 'coordinator-lease') {
          if (!isTerm(r.term) || typeof r.until !== 'number' || Number.isNaN(r.until)) {
            ctx.emit({ type: 'ignored', from: ctx.self, reason: 'malformed coordinator-lease' })
          } else coordinatorLease(r.term, r.until, ctx)
        } else if (r?.type === 'query') {
          // Answered by the coordinator (locally when this node is it), never sent again: a
          // caller that hears nothing gives up on its own timer.
          if (!isQueryId(r.id))
            ctx.emit({ type: 'ignored', from: ctx.self, reason: 'malformed query' })
          else node.toCoordinator({ type: 'query', term: node.term, id: r.id }, ctx)
        } else if (
          (r?.type === 'acquire' || r?.type === 'release') &&
          typeof resource === 'string'
        ) {
          if (r.type === 'release') client.release(resource, ctx)
          else {
            const want = parseWant(r)
            if (typeof want === 'string') {
              ctx.emit({ type: 'ignored', from: ctx.self, reason: `malformed acquire: ${want}` })
            } else client.acquire(resource, want, ctx)
          }
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
          recover(from, msg, ctx)
          return
        }
        if (TO_COORDINATOR.has(msg.type)) {
          // Rule 5: the sender knows this node coordinates a newer term.
          if (msg.term > node.term && !change(ctx.self, msg.term, ctx, from)) return
          coordinatorGets(from, msg, ctx)
          return
        }
        clientGets(from, msg, ctx)
      },

      onTimer(key, ctx) {
        if (coord?.onTimer(key, ctx)) return
        client.onTimer(key, ctx)
      },
    }
  }
}
