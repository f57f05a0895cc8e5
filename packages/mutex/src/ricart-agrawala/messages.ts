import { isNonNegInt, isString, messageParser, oneOf, optional } from '@sd/transport'
import type { LockMode } from '../contract.js'
import { isLamportTime, VIEW_MESSAGE_FIELDS, type ViewMessage } from '../lamport/messages.js'

/**
 * Ricart-Agrawala's messages. `view` is the sender's view number, absent in view 0 (see `GroupView`). `time` is the sender's Lamport clock (merged on receipt). A reply
 * names the request it answers by that request's time (`req`), so a late reply to an older
 * request (of a node that crashed and restarted) is never counted for a newer one.
 */
export type RicartAgrawalaMessage =
  /**
   * `mode` is sent only for a shared request: an exclusive one goes out as before, and a request
   * without `mode` (from a peer that predates modes) is exclusive.
   */
  | { type: 'request'; resource: string; time: number; mode?: LockMode; view?: number }
  /** Permission to enter. */
  | { type: 'ok'; resource: string; time: number; req: number; view?: number }
  /** alwaysAnswer only: "not now; OK follows when I release or my earlier request is done". */
  | { type: 'deny'; resource: string; time: number; req: number; view?: number }
  /** "I installed `view`" (`ask`: answer with yours), so members stamp requests above my clock. */
  | ViewMessage

/** Checks a peer's message shape; returns it typed, or why it is refused. */
export const parseMessage = messageParser<RicartAgrawalaMessage>({
  request: {
    resource: isString,
    time: isLamportTime,
    mode: optional(oneOf('exclusive', 'shared')),
    view: optional(isNonNegInt),
  },
  ok: { resource: isString, time: isLamportTime, req: isNonNegInt, view: optional(isNonNegInt) },
  deny: { resource: isString, time: isLamportTime, req: isNonNegInt, view: optional(isNonNegInt) },
  view: VIEW_MESSAGE_FIELDS,
})
