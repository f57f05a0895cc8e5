import { isNonNegInt as isCount, isRecord, type NodeId } from '@sd/transport'
import type { MutexEvent } from '../contract.js'

/**
 * What clients and coordinators say. `session` (drawn at each start of a client) and `attempt`
 * (counted by the client) name one round of asking, so a late or repeated answer is told from a
 * current one, and a release frees only the grant it is about.
 */
export type QuorumMessage =
  /**
   * Client to coordinator: grant me `resource`. `token` is the largest token the client entered
   * with on it (0 if none), as on release: a request may overtake the release before it.
   */
  | { type: 'request'; resource: string; session: number; attempt: number; token: number }
  /** Coordinator to client: granted, with this coordinator's grant counter. */
  | { type: 'grant'; resource: string; session: number; attempt: number; counter: number }
  /** Coordinator to client: granted to someone else. */
  | { type: 'deny'; resource: string; session: number; attempt: number }
  /**
   * Client to coordinator: I give back the grant of that round. `token` is the largest token the
   * client entered with on the resource (0 if none): the coordinator's counter moves past it, so
   * the next holder's token is larger. Also the answer to a `query` about a round that is over.
   */
  | { type: 'release'; resource: string; session: number; attempt: number; token: number }
  /**
   * Coordinator to the client it granted: is that round still yours? Sent when the coordinator
   * denies someone else and has heard nothing about its grant for a while: the client answers
   * with a `release` if the round is over (its RELEASE, or the GRANT itself, was lost), and says
   * nothing if it still collects or holds with it.
   */
  | { type: 'query'; resource: string; session: number; attempt: number }

const KINDS = new Set(['request', 'grant', 'deny', 'release', 'query'])

/** The message if it has the shape of one, else a reason to ignore it. */
export function parseMessage(msg: unknown): QuorumMessage | string {
  if (!isRecord(msg)) return 'malformed: not an object'
  const m = msg
  if (typeof m.type !== 'string' || !KINDS.has(m.type)) return 'malformed: unknown type'
  if (typeof m.resource !== 'string') return `malformed ${m.type}: resource`
  if (!isCount(m.session) || !isCount(m.attempt)) return `malformed ${m.type}: session or attempt`
  if (m.type === 'grant' && !isCount(m.counter)) return 'malformed grant: counter'
  if ((m.type === 'release' || m.type === 'request') && !isCount(m.token)) {
    return `malformed ${m.type}: token`
  }
  return m as QuorumMessage
}

/** The events of this algorithm, beside `acquired` / `released`. */
export type QuorumEvent =
  | MutexEvent
  /** On entering: the quorum the client holds (`count` grants of `of` coordinators). */
  | { type: 'grants'; resource: string; count: number; of: number }
  /** A round failed (denials or timeout): the client gave back its grants and waits `delay` ms. */
  | { type: 'backoff'; resource: string; attempt: number; delay: number }
  /** A message or request that was not acted upon, and why. */
  | { type: 'ignored'; from: NodeId; reason: string }
