import { isNonNegInt as count, isNodeId, isRecord, type NodeId } from '@sd/transport'

/** The token as it travels: its generation, its entry counter and the ring it knows. */
export interface TokenState {
  generation: number
  /** Entries made with this token (its generation's part of the fencing token). */
  count: number
  /** The ring, ascending by id. */
  members: NodeId[]
}

export type TokenRingMessage =
  /** A pass of the token; `pass` numbers the sender's passes, so retries are recognised. */
  | ({ type: 'token'; pass: number } & TokenState)
  /** The receiver has the token (not yet usable). */
  | { type: 'ack'; pass: number }
  /** The sender chose this receiver: the token is now the receiver's. */
  | { type: 'commit'; pass: number }
  /** A regeneration election, forwarded along the ring; `live` collects who it went through. */
  | { type: 'regen'; generation: number; initiator: NodeId; live: NodeId[]; hop: number }
  | { type: 'regen-ack'; hop: number }

export type TokenRingEvent =
  | { type: 'acquired'; resource: string; token: number }
  | { type: 'released'; resource: string; token: number }
  | { type: 'ring-changed'; members: NodeId[] }
  | { type: 'token-regenerated'; generation: number }
  | { type: 'token-destroyed'; generation: number }
  | { type: 'ignored'; from: NodeId; reason: string }

/** Fencing token: generation in the high part, so a regenerated token continues above. */
export const GENERATION_UNIT = 2 ** 32

const ids = (v: unknown): v is NodeId[] => Array.isArray(v) && v.length > 0 && v.every(isNodeId)

/** The message, or why it is not one. */
export function parseMessage(msg: unknown): TokenRingMessage | string {
  if (!isRecord(msg)) return 'not an object'
  const m = msg
  switch (m.type) {
    case 'token':
      if (!count(m.pass) || !count(m.generation) || !count(m.count) || !ids(m.members)) {
        return 'malformed token'
      }
      if (m.generation >= 2 ** 20 || m.count >= GENERATION_UNIT) return 'token out of range'
      return m as unknown as TokenRingMessage
    case 'ack':
    case 'commit':
    case 'regen-ack':
      return count(m.type === 'regen-ack' ? m.hop : m.pass)
        ? (m as unknown as TokenRingMessage)
        : `malformed ${m.type}`
    case 'regen':
      if (!count(m.generation) || !isNodeId(m.initiator) || !ids(m.live) || !count(m.hop)) {
        return 'malformed regen'
      }
      return m as unknown as TokenRingMessage
    default:
      return `unknown message type ${JSON.stringify(m.type)}`
  }
}
