import {
  arrayOf,
  isBoolean,
  isNonNegInt as isCount,
  isString as isName,
  isNodeId,
  isFiniteNumber as isTime,
  messageParser,
  type NodeId,
  oneOf,
  optional,
  shape,
} from '@sd/transport'
import { HOLD_FIELDS, type Hold, WANT_FIELDS, type Want } from './kinds.js'
import { isQueryId, isStateResources, type StateResource } from './lock-state.js'

/**
 * The wire messages of the centralized mutex; every one carries the sender's coordinator term.
 * The fields of `Hold` / `Want` (how an entry holds) are absent for an exclusive one.
 */
export type CentralizedMessage =
  /** `at`: when the client sent this copy, on its monotonic clock; the GRANT echoes it. */
  | ({ type: 'request'; term: number; resource: string; seq: number; at: number } & Want)
  | ({
      type: 'grant'
      term: number
      epoch: number
      resource: string
      seq: number
      token: number
      at: number
      /** Option `burst`: the grant covers entries `token` to `token + burst - 1` (absent: 1). */
      burst?: number
    } & Hold)
  | { type: 'denied'; term: number; resource: string; seq: number }
  /** An `ifAvailable` request not grantable at once, or permits of another limit than the resource's. */
  | {
      type: 'refused'
      term: number
      resource: string
      seq: number
      reason: 'unavailable' | 'limit-mismatch'
      /** `limit-mismatch`: the limit the resource's entries use (0 otherwise). */
      limit: number
    }
  | ({ type: 'release'; term: number; resource: string; token: number } & Hold)
  | { type: 'renew'; term: number; resource: string; token: number; at: number }
  | { type: 'renewed'; term: number; resource: string; token: number; at: number }
  | { type: 'revoked'; term: number; resource: string; token: number }
  /**
   * Another node stole the resource (`steal`): the entry of `token` is over. `seq`: the request
   * it answered (-1 for an entry claimed in a SYNC), so a GRANT still on its way is not entered.
   */
  | { type: 'stolen'; term: number; resource: string; token: number; seq: number }
  /**
   * The victim of a steal no longer holds `token` (or never will: a GRANT of it still on its way
   * is given back). The stealer is granted once every victim acknowledged (or its lease ran out).
   */
  | { type: 'stolen-ack'; term: number; resource: string; token: number }
  /** `view`: the sender's view number, absent in view 0 (views.ts); only one of the coordinator's view counts for its recovery. */
  | { type: 'sync'; term: number; epoch: number; held: Held[]; wanted: Wanted[]; view?: number }
  | { type: 'recover'; term: number; epoch: number; view?: number }
  | { type: 'newer'; term: number; coordinator: NodeId }
  /** A client asks for the coordinator's view of every resource; `id` is echoed (lock-state.ts). */
  | { type: 'query'; term: number; id: string | number }
  /** The answer: holders and waiting requests per resource, bounded (`truncated` past the bound). */
  | {
      type: 'lock-state'
      term: number
      id: string | number
      recovering: boolean
      truncated: boolean
      resources: StateResource[]
    }

/** A holder's claim, sent to a new (or restarted) coordinator. */
export interface Held extends Hold {
  resource: string
  token: number
}
/** A waiting request, sent again to a new (or restarted) coordinator. */
export interface Wanted extends Want {
  resource: string
  seq: number
  at: number
}

const isHeld = shape({ resource: isName, token: isCount, ...HOLD_FIELDS })
const isWanted = shape({ resource: isName, seq: isCount, at: isTime, ...WANT_FIELDS })

/**
 * The message, or why it is not one (peers' messages are never trusted to be well formed). The
 * term is listed first, so a message without a valid one is refused for its term.
 */
export const parseMessage = messageParser<CentralizedMessage>({
  request: { term: isCount, resource: isName, seq: isCount, at: isTime, ...WANT_FIELDS },
  grant: {
    term: isCount,
    epoch: isCount,
    resource: isName,
    seq: isCount,
    token: isCount,
    at: isTime,
    burst: optional(isCount),
    ...HOLD_FIELDS,
  },
  denied: { term: isCount, resource: isName, seq: isCount },
  refused: {
    term: isCount,
    resource: isName,
    seq: isCount,
    reason: oneOf('unavailable', 'limit-mismatch'),
    limit: isCount,
  },
  release: { term: isCount, resource: isName, token: isCount, ...HOLD_FIELDS },
  renew: { term: isCount, resource: isName, token: isCount, at: isTime },
  renewed: { term: isCount, resource: isName, token: isCount, at: isTime },
  revoked: { term: isCount, resource: isName, token: isCount },
  stolen: { term: isCount, resource: isName, token: isCount, seq: isTime },
  'stolen-ack': { term: isCount, resource: isName, token: isCount },
  sync: {
    term: isCount,
    epoch: isCount,
    held: arrayOf(isHeld),
    wanted: arrayOf(isWanted),
    view: optional(isCount),
  },
  recover: { term: isCount, epoch: isCount, view: optional(isCount) },
  newer: { term: isCount, coordinator: isNodeId },
  query: { term: isCount, id: isQueryId },
  'lock-state': {
    term: isCount,
    id: isQueryId,
    recovering: isBoolean,
    truncated: isBoolean,
    resources: isStateResources,
  },
})
