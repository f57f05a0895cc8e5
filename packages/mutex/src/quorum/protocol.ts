import {
  type Ctx,
  InvalidArgumentError,
  type NodeId,
  type Protocol,
  type ProtocolFactory,
} from '@sd/transport'
import { type MutexRequest, resourceOf } from '../contract.js'
import { Client } from './client.js'
import { Coordinator } from './coordinator.js'
import { durableGrants, type GrantStore, volatileGrants } from './grants.js'
import type { Io } from './io.js'
import { parseMessage, type QuorumEvent, type QuorumMessage } from './messages.js'
import { type QuorumMutexOptions, settingsOf } from './options.js'
import { clientRank } from './tokens.js'

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
): ProtocolFactory<QuorumMessage, MutexRequest, QuorumEvent> {
  const settings = settingsOf(options)
  return (self: NodeId): Protocol<QuorumMessage, MutexRequest, QuorumEvent> => {
    let ctx: Ctx<QuorumMessage, QuorumEvent> | undefined
    let client: Client | undefined
    const store: GrantStore = settings.durableGrants
      ? durableGrants(() => ctx!.storage)
      : volatileGrants()
    const coordinator = settings.isCoordinator(self)
      ? new Coordinator(() => store, settings.reclaimAfterMs)
      : undefined
    // Messages to self are handled here, after the handler that sent them, not sent on the wire.
    const loopback: QuorumMessage[] = []
    const io: Io = {
      self,
      send(to, msg) {
        if (to === self) loopback.push(msg)
        else ctx!.send(to, msg)
      },
      emit: (event) => ctx!.emit(event),
      setTimer: (key, ms) => ctx!.setTimer(key, ms),
      cancelTimer: (key) => ctx!.cancelTimer(key),
      random: () => ctx!.random(),
      monotonic: () => ctx!.monotonic(),
    }

    const receive = (from: NodeId, raw: unknown): void => {
      const msg = parseMessage(raw)
      if (typeof msg === 'string') {
        io.emit({ type: 'ignored', from, reason: msg })
      } else if (msg.type === 'request' || msg.type === 'release') {
        if (coordinator === undefined) {
          io.emit({ type: 'ignored', from, reason: `${msg.type}: not a coordinator` })
        } else if (msg.type === 'request') {
          coordinator.onRequest(from, msg, io)
        } else {
          coordinator.onRelease(from, msg, io)
        }
      } else if (!settings.isCoordinator(from)) {
        io.emit({ type: 'ignored', from, reason: `${msg.type}: sender is no coordinator` })
      } else if (msg.type === 'query') {
        client?.onQuery(from, msg, io)
      } else {
        client?.onAnswer(from, msg, io)
      }
    }

    // Every handler binds the ctx, runs, then drains what it sent to itself.
    const handle = (c: Ctx<QuorumMessage, QuorumEvent>, body: () => void): void => {
      ctx = c
      body()
      for (let msg = loopback.shift(); msg !== undefined; msg = loopback.shift()) {
        receive(self, msg)
      }
    }

    return {
      start(c) {
        handle(c, () => {
          const members = new Set<NodeId>([c.self, ...c.peers])
          const missing = settings.coordinators.filter((id) => !members.has(id))
          if (missing.length > 0) {
            throw new InvalidArgumentError(
              `quorumMutex: coordinators ${missing.map(String).join(', ')} are not members`,
            )
          }
          // A damaged store is refused now, not at the first request that reads it.
          if (coordinator !== undefined) store.check()
          // A new session per life, so answers meant for an earlier life are recognised.
          client = new Client(settings, Math.floor(c.random() * 2 ** 32), clientRank(self, c.peers))
        })
      },
      onMessage(from, raw, c) {
        handle(c, () => receive(from, raw))
      },
      onTimer(key, c) {
        handle(c, () => client?.onTimer(key, io))
      },
      onRequest(req, c) {
        handle(c, () => {
          const type = (req as { type?: unknown } | null)?.type
          const resource = typeof req === 'object' && req !== null ? resourceOf(req) : undefined
          if (typeof resource !== 'string' || (type !== 'acquire' && type !== 'release')) {
            io.emit({ type: 'ignored', from: self, reason: 'malformed request' })
          } else if (type === 'acquire') {
            client?.acquire(resource, io)
          } else {
            client?.release(resource, io)
          }
        })
      },
    }
  }
}
