import {
  isNonNegInt as isCount,
  isString as isName,
  isNodeId,
  isRecord as isRec,
  isFiniteNumber as isTime,
  type NodeId,
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

type Rec = Record<string, unknown>

const fields: Record<CentralizedMessage['type'], (m: Rec) => boolean> = {
  request: (m) => isName(m.resource) && isCount(m.seq) && isTime(m.at),
  grant: (m) =>
    isCount(m.epoch) && isName(m.resource) && isCount(m.seq) && isCount(m.token) && isTime(m.at),
  denied: (m) => isName(m.resource) && isCount(m.seq),
  release: (m) => isName(m.resource) && isCount(m.token),
  renew: (m) => isName(m.resource) && isCount(m.token) && isTime(m.at),
  renewed: (m) => isName(m.resource) && isCount(m.token) && isTime(m.at),
  revoked: (m) => isName(m.resource) && isCount(m.token),
  sync: (m) =>
    isCount(m.epoch) &&
    Array.isArray(m.held) &&
    m.held.every((h) => isRec(h) && isName(h.resource) && isCount(h.token)) &&
    Array.isArray(m.wanted) &&
    m.wanted.every((w) => isRec(w) && isName(w.resource) && isCount(w.seq) && isTime(w.at)),
  recover: (m) => isCount(m.epoch),
  newer: (m) => isNodeId(m.coordinator),
}

/** The message, or why it is not one (peers' messages are never trusted to be well formed). */
export function parseMessage(msg: unknown): CentralizedMessage | string {
  if (!isRec(msg)) return 'not an object'
  const check =
    typeof msg.type === 'string' ? fields[msg.type as CentralizedMessage['type']] : undefined
  if (check === undefined || !Object.hasOwn(fields, msg.type as string)) {
    return `unknown message type ${JSON.stringify(msg.type)}`
  }
  if (!isCount(msg.term)) return `${String(msg.type)} without a valid term`
  if (!check(msg)) return `malformed ${String(msg.type)}`
  return msg as unknown as CentralizedMessage
}
