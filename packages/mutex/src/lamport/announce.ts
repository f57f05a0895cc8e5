import { fencingToken } from './timestamp.js'

/** The `requested` event both timestamp algorithms emit for a request of their own. */
export type RequestedEvent = { type: 'requested'; resource: string; time: number; token: number }

/**
 * Makes a request of this node known: to the application (`requested`, with the token the entry
 * will carry) and to every peer (one REQUEST stamped `time`, the same for every copy).
 */
export function announceRequest(
  resource: string,
  time: number,
  rank: number,
  ctx: {
    emit(event: RequestedEvent): void
    broadcast(msg: { type: 'request'; resource: string; time: number }): void
  },
): void {
  ctx.emit({ type: 'requested', resource, time, token: fencingToken(time, rank) })
  ctx.broadcast({ type: 'request', resource, time })
}
