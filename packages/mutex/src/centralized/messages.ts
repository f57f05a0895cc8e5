import {
  arrayOf,
  isNonNegInt as isCount,
  isString as isName,
  isNodeId,
  isFiniteNumber as isTime,
  messageParser,
  type NodeId,
  shape,
} from '@sd/transport'

/** The wire messages of the centralized mutex; every one carries the sender's coordinator term. */
export type CentralizedMessage =
  /** `at`: when the client sent this copy, on its monotonic clock; the GRANT echoes it. */
  | { type: 'request'; term: number; resource: string; seq: number; at: number }
  | {
      type: 'grant'
      term: number
      epoch: number
      resource: string
      seq: number
      token: number
      at: number
    }
  | { type: 'denied'; term: number; resource: string; seq: number }
  | { type: 'release'; term: number; resource: string; token: number }
  | { type: 'renew'; term: number; resource: string; token: number; at: number }
  | { type: 'renewed'; term: number; resource: string; token: number; at: number }
  | { type: 'revoked'; term: number; resource: string; token: number }
  | { type: 'sync'; term: number; epoch: number; held: Held[]; wanted: Wanted[] }
  | { type: 'recover'; term: number; epoch: number }
  | { type: 'newer'; term: number; coordinator: NodeId }

/** A holder's claim, sent to a new (or restarted) coordinator. */
export interface Held {
  resource: string
  token: number
}
/** A waiting request, sent again to a new (or restarted) coordinator. */
export interface Wanted {
  resource: string
  seq: number
  at: number
}

const isHeld = shape({ resource: isName, token: isCount })
const isWanted = shape({ resource: isName, seq: isCount, at: isTime })

/**
 * The message, or why it is not one (peers' messages are never trusted to be well formed). The
 * term is listed first, so a message without a valid one is refused for its term.
 */
export const parseMessage = messageParser<CentralizedMessage>({
  request: { term: isCount, resource: isName, seq: isCount, at: isTime },
  grant: {
    term: isCount,
    epoch: isCount,
    resource: isName,
    seq: isCount,
    token: isCount,
    at: isTime,
  },
  denied: { term: isCount, resource: isName, seq: isCount },
  release: { term: isCount, resource: isName, token: isCount },
  renew: { term: isCount, resource: isName, token: isCount, at: isTime },
  renewed: { term: isCount, resource: isName, token: isCount, at: isTime },
  revoked: { term: isCount, resource: isName, token: isCount },
  sync: { term: isCount, epoch: isCount, held: arrayOf(isHeld), wanted: arrayOf(isWanted) },
  recover: { term: isCount, epoch: isCount },
  newer: { term: isCount, coordinator: isNodeId },
})
