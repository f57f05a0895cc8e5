import { intIn, isNonNegInt, isString, messageParser } from '@sd/transport'

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
 * Lamport's mutual exclusion messages; `time` is the sender's Lamport clock. A RELEASE names the
 * request it ends by that request's time (`req`).
 */
export type LamportMutexMessage =
  | { type: 'request'; resource: string; time: number }
  /** The timestamped acknowledgement of a request. */
  | { type: 'reply'; resource: string; time: number }
  | { type: 'release'; resource: string; time: number; req: number }

/** Checks a peer's message shape; returns it typed, or why it is refused. */
export const parseMessage = messageParser<LamportMutexMessage>({
  request: { resource: isString, time: isLamportTime },
  reply: { resource: isString, time: isLamportTime },
  release: { resource: isString, time: isLamportTime, req: isNonNegInt },
})
