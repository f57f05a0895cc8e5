import { intIn, isNonNegInt, isString, messageParser, oneOf, optional } from '@sd/transport'

/**
 * The largest Lamport time taken from a peer: 2^36. A received time is adopted (R2), and the
 * fencing token packs it as T × 65536 + rank, exact only while T < 2^37; near 2^53 the clock's next
 * send would even throw inside a handler. So one message stamped higher could make every later
 * token of its receiver wrong, or crash it; refused, it leaves 2^36 (about 6.9 × 10^10) events of
 * headroom after any message. An honest clock gets there only after that many requests.
 */
export const MAX_PEER_TIME = 2 ** 36

/**
 * A Lamport time as a peer may stamp it: an integer from 0 to MAX_PEER_TIME. Only `time` is
 * adopted; `req` names a request already made, so it is any integer >= 0.
 */
export const isLamportTime = intIn(0, MAX_PEER_TIME)

/**
 * Lamport's mutual exclusion messages; `time` is the sender's Lamport clock, `view` its view
 * number (absent in view 0). A RELEASE names the
 * request it ends by that request's time (`req`).
 */
export type LamportMutexMessage =
  | { type: 'request'; resource: string; time: number; view?: number }
  /** The timestamped acknowledgement of a request. */
  | { type: 'reply'; resource: string; time: number; view?: number }
  | { type: 'release'; resource: string; time: number; req: number; view?: number }
  | ViewMessage

/**
 * Both timestamp algorithms' "I installed `view`", stamped with the sender's clock; `ask`: answer
 * with yours (a member that restarted, or was down when the view went round, asks again).
 */
export type ViewMessage = { type: 'view'; view: number; time: number; ask?: true }

/** The shape of a `view` message (for each algorithm's parser). */
export const VIEW_MESSAGE_FIELDS = {
  view: isNonNegInt,
  time: isLamportTime,
  ask: optional(oneOf(true)),
}

const view = optional(isNonNegInt)

/** Checks a peer's message shape; returns it typed, or why it is refused. */
export const parseMessage = messageParser<LamportMutexMessage>({
  request: { resource: isString, time: isLamportTime, view },
  reply: { resource: isString, time: isLamportTime, view },
  release: { resource: isString, time: isLamportTime, req: isNonNegInt, view },
  view: VIEW_MESSAGE_FIELDS,
})
