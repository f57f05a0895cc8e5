import {
  arrayOf,
  isNonNegInt as count,
  intIn,
  isNodeId,
  messageParser,
  type NodeId,
  optional,
} from '@sd/transport'

/** The token as it travels: its generation, its entry counter and the ring it knows. */
export interface TokenState {
  generation: number
  /** Entries made with this token (its generation's part of the fencing token). */
  count: number
  /** The ring, ascending by id. */
  members: NodeId[]
  /** The view (`ViewRequest`) the ring comes from; absent: view 0, the group started with. */
  view?: number
}

/** Views stay below 2^20, like generations. */
export const MAX_VIEW = 2 ** 20 - 1

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

/** Fencing token: generation in the high part, so a regenerated token continues above. */
export const GENERATION_UNIT = 2 ** 32

const members = arrayOf(isNodeId, { min: 1 })

/** The message, or why it is not one. */
export const parseMessage = messageParser<TokenRingMessage>({
  token: {
    pass: count,
    // Generations stay below 2^20 and counts below GENERATION_UNIT: their fencing token is exact.
    generation: intIn(0, 2 ** 20 - 1),
    count: intIn(0, GENERATION_UNIT - 1),
    members,
    view: optional(intIn(1, MAX_VIEW)),
  },
  ack: { pass: count },
  commit: { pass: count },
  regen: { generation: count, initiator: isNodeId, live: members, hop: count },
  'regen-ack': { hop: count },
})
