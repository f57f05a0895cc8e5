import { isNonNegInt as isLamportTime, isString, messageParser } from '@sd/transport'

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
  release: { resource: isString, time: isLamportTime, req: isLamportTime },
})
