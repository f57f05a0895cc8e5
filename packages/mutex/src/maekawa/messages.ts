import {
  isNonNegInt as count,
  intIn,
  isNodeId,
  messageParser,
  type NodeId,
  optional,
} from '@sd/transport'

/** Views stay below 2^20 and entries per view below VIEW_UNIT: fencing tokens stay exact. */
export const VIEW_UNIT = 2 ** 32
export const MAX_VIEW = 2 ** 20 - 1

/**
 * Every message names the request it is about: its Lamport time `req` and its requester `by`
 * (the pair orders requests); `time` is the sender's Lamport clock; `view` the view the request
 * was made in (absent: view 0, the group the nodes were started with).
 */
interface About {
  time: number
  req: number
  by: NodeId
  view?: number
}

export type MaekawaMessage =
  /** Requester to each quorum member. */
  | ({ type: 'request' } & About)
  /** Member to requester: you have my vote; `fence` is the highest fencing token released to me. */
  | ({ type: 'locked'; fence: number } & About)
  /** Member to requester: an earlier request is ahead of yours here. */
  | ({ type: 'failed' } & About)
  /** Member to its current grantee: an earlier request arrived, may I take my vote back? */
  | ({ type: 'inquire' } & About)
  /** Grantee to member: take it back (I have not entered, and I know I cannot yet). */
  | ({ type: 'relinquish' } & About)
  /** Requester to each quorum member, on leaving; `fence` is the token it entered with. */
  | ({ type: 'release'; fence: number } & About)
  /**
   * To every member of a view the sender just installed: I am in `view` (or a later one) and
   * hold the entry of token `hold` (0: I hold nothing). See `views.ts`.
   */
  | { type: 'sync'; time: number; view: number; hold: number }

const about = { time: count, req: count, by: isNodeId, view: optional(intIn(0, MAX_VIEW)) }

/** The message, or why it is not one. */
export const parseMessage = messageParser<MaekawaMessage>({
  request: about,
  locked: { ...about, fence: count },
  failed: about,
  inquire: about,
  relinquish: about,
  release: { ...about, fence: count },
  sync: { time: count, view: intIn(1, MAX_VIEW), hold: count },
})

/** A message before the sender stamps it with its clock. */
export type Unstamped = MaekawaMessage extends infer M
  ? M extends unknown
    ? Omit<M, 'time'>
    : never
  : never
