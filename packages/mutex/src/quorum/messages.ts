import { isNonNegInt as isCount, isString, messageParser } from '@sd/transport'

/**
 * What clients and coordinators say. `session` (drawn at each start of a client) and `attempt`
 * (counted by the client) name one round of asking, so a late or repeated answer is told from a
 * current one, and a release frees only the grant it is about.
 */
export type QuorumMutexMessage =
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

/** @deprecated Use QuorumMutexMessage. */
export type QuorumMessage = QuorumMutexMessage

const round = { resource: isString, session: isCount, attempt: isCount }

/** The message if it has the shape of one, else a reason to ignore it. */
export const parseMessage = messageParser<QuorumMutexMessage>({
  request: { ...round, token: isCount },
  grant: { ...round, counter: isCount },
  deny: round,
  release: { ...round, token: isCount },
  query: round,
})
