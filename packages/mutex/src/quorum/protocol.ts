import {
  type Ctx,
  InvalidArgumentError,
  type NodeId,
  type Protocol,
  type ProtocolFactory,
} from '@sd/transport'
import { type MutexRequest, resourceOf } from '../contract.js'
import { orNull, plainCopy, type Snapshot, snapshotFields } from '../snapshot.js'
import { Client } from './client.js'
import { Coordinator } from './coordinator.js'
import type { QuorumMutexEvent } from './events.js'
import { durableGrants, type GrantStore, volatileGrants } from './grants.js'
import { parseMessage, type QuorumMutexMessage } from './messages.js'
import { type QuorumMutexOptions, resolveOptions } from './options.js'
import { clientRank } from './tokens.js'

/** What every handler and helper is handed (never kept). */
export type QuorumMutexCtx = Ctx<QuorumMutexMessage, QuorumMutexEvent>
/** How the roles send: a message to this node itself is handled after the handler, not sent. */
export type Send = (to: NodeId, msg: QuorumMutexMessage, ctx: QuorumMutexCtx) => void

/**
 * The quorum mutex of the course texts: n coordinators, a client enters with m > n/2 grants.
 * Coordinators keep their grants in memory (unless `durableGrants`), so a coordinator that
 * restarts forgets them, and two clients can hold quorums whose intersection restarted: mutual
 * exclusion holds with probability 1 - P_v (see `violationProbability`).
 *
 * Under message loss, grants are not leased: a coordinator that denies another client and has
 * heard nothing about its grant for `reclaimAfterMs` asks the holder (QUERY), which gives back a
 * round that is over, so a lost RELEASE or GRANT does not bind a coordinator for good. A client
 * that crashes for good holding grants keeps them (a restarted one gives them back when asked).
 * Tokens are the quorum's largest grant counter x 65536 + the client's rank: never equal for two
 * clients, so even two overlapping holders carry different tokens.
 */
export function quorumMutex(
  options: QuorumMutexOptions,
): ProtocolFactory<QuorumMutexMessage, MutexRequest, QuorumMutexEvent> {
  const settings = resolveOptions(options)
  return (self: NodeId): Protocol<QuorumMutexMessage, MutexRequest, QuorumMutexEvent> => {
    let client: Client | undefined
    const store: GrantStore = settings.durableGrants ? durableGrants() : volatileGrants()
    // Messages to self are handled here, after the handler that sent them, not sent on the wire.
    const loopback: QuorumMutexMessage[] = []
    const send: Send = (to, msg, ctx) => {
      if (to === self) loopback.push(msg)
      else ctx.send(to, msg)
    }
    const coordinator = settings.isCoordinator(self)
      ? new Coordinator(store, settings.reclaimAfterMs, send)
      : undefined

    const receive = (from: NodeId, raw: unknown, ctx: QuorumMutexCtx): void => {
      const msg = parseMessage(raw)
      if (typeof msg === 'string') {
        ctx.emit({ type: 'ignored', from, reason: msg })
      } else if (msg.type === 'request' || msg.type === 'release') {
        if (coordinator === undefined) {
          ctx.emit({ type: 'ignored', from, reason: `${msg.type}: not a coordinator` })
        } else if (msg.type === 'request') {
          coordinator.onRequest(from, msg, ctx)
        } else {
          coordinator.onRelease(from, msg, ctx)
        }
      } else if (!settings.isCoordinator(from)) {
        ctx.emit({ type: 'ignored', from, reason: `${msg.type}: sender is no coordinator` })
      } else if (msg.type === 'query') {
        client?.onQuery(from, msg, ctx)
      } else {
        client?.onAnswer(from, msg, ctx)
      }
    }

    /** Every handler ends by handling what it sent to itself, with its own ctx. */
    const drain = (ctx: QuorumMutexCtx): void => {
      for (let msg = loopback.shift(); msg !== undefined; msg = loopback.shift()) {
        receive(self, msg, ctx)
      }
    }

    return {
      snapshot: () => ({
        client: orNull(client, (c) => c.snapshot()),
        coordinator: orNull(coordinator, (c) => c.snapshot()),
        grants: store.snapshot(),
        loopback: loopback.map(plainCopy), // drained by every handler: empty between steps
      }),

      restore(snapshot) {
        const fields = ['client', 'coordinator', 'grants', 'loopback'] as const
        const s = snapshotFields(snapshot, 'quorumMutex()', fields)
        client =
          s.client === null ? undefined : Client.restored(settings, send, s.client as Snapshot)
        if (coordinator !== undefined && s.coordinator !== null)
          coordinator.restore(s.coordinator as Snapshot)
        store.restore(s.grants as Snapshot)
        loopback.length = 0
        loopback.push(...(s.loopback as QuorumMutexMessage[]).map((m) => ({ ...m })))
      },

      start(ctx) {
        const members = new Set<NodeId>([ctx.self, ...ctx.peers])
        const missing = settings.coordinators.filter((id) => !members.has(id))
        if (missing.length > 0) {
          throw new InvalidArgumentError(
            `quorumMutex: coordinators ${missing.map(String).join(', ')} are not members`,
          )
        }
        // A damaged store is refused now, not at the first request that reads it.
        if (coordinator !== undefined) store.check(ctx.storage)
        // A new session per life, so answers meant for an earlier life are recognised.
        const session = Math.floor(ctx.random() * 2 ** 32)
        client = new Client(settings, session, clientRank(self, ctx.peers), send)
        drain(ctx)
      },
      onMessage(from, raw, ctx) {
        receive(from, raw, ctx)
        drain(ctx)
      },
      onTimer(key, ctx) {
        client?.onTimer(key, ctx)
        drain(ctx)
      },
      onRequest(req, ctx) {
        // Checked, not trusted: requests come from application code, typed or not.
        const loose: { type?: unknown } | null = req
        const type = loose?.type
        const resource = typeof req === 'object' && req !== null ? resourceOf(req) : undefined
        if (typeof resource !== 'string' || (type !== 'acquire' && type !== 'release')) {
          ctx.emit({ type: 'ignored', from: self, reason: 'malformed request' })
        } else if (type === 'acquire') {
          client?.acquire(resource, ctx)
        } else {
          client?.release(resource, ctx)
        }
        drain(ctx)
      },
    }
  }
}
