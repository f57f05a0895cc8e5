import { isNonNegInt as count, isNodeId, messageParser, type NodeId } from '@sd/transport'

/**
 * Every message names the request it is about: its Lamport time `req` and its requester `by`
 * (the pair orders requests); `time` is the sender's Lamport clock.
 */
interface About {
  time: number
  req: number
  by: NodeId
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

const about = { time: count, req: count, by: isNodeId }

/** The message, or why it is not one. */
export const parseMessage = messageParser<MaekawaMessage>({
  request: about,
  locked: { ...about, fence: count },
  failed: about,
  inquire: about,
  relinquish: about,
  release: { ...about, fence: count },
})

/** A message before the sender stamps it with its clock. */
export type Unstamped = MaekawaMessage extends infer M
  ? M extends unknown
    ? Omit<M, 'time'>
    : never
  : never
