import { isNonNegInt as count, isNodeId, isRecord, type NodeId } from '@sd/transport'

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

export type MaekawaEvent =
  | { type: 'acquired'; resource: string; token: number }
  | { type: 'released'; resource: string; token: number }
  /** At start: this node's quorum. */
  | { type: 'quorum'; members: NodeId[] }
  /** The node gave a member's vote back on its INQUIRE. */
  | { type: 'relinquished'; to: NodeId }
  | { type: 'ignored'; from: NodeId; reason: string }

const TYPES = new Set(['request', 'locked', 'failed', 'inquire', 'relinquish', 'release'])

/** The message, or why it is not one. */
export function parseMessage(msg: unknown): MaekawaMessage | string {
  if (!isRecord(msg)) return 'not an object'
  const m = msg
  if (typeof m.type !== 'string' || !TYPES.has(m.type)) {
    return `unknown message type ${JSON.stringify(m.type)}`
  }
  if (!count(m.time) || !count(m.req) || !isNodeId(m.by)) return `malformed ${m.type}`
  if ((m.type === 'locked' || m.type === 'release') && !count(m.fence)) return `malformed ${m.type}`
  return m as unknown as MaekawaMessage
}

/** A message before the sender stamps it with its clock. */
export type Unstamped = MaekawaMessage extends infer M
  ? M extends unknown
    ? Omit<M, 'time'>
    : never
  : never
