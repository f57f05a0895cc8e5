import { fencingToken } from './timestamp.js'

/**
 * The `requested` event both timestamp algorithms emit for a request of their own (`mode` only
 * for a shared request of Ricart-Agrawala's).
 */
export type RequestedEvent = {
  type: 'requested'
  resource: string
  time: number
  token: number
  mode?: 'shared'
}

/**
 * Makes a request of this node known: to the application (`requested`, with the token the entry
 * will carry) and to every peer (one REQUEST stamped `time`, the same for every copy). `extra`
 * (`{ mode: 'shared' }` or nothing) goes on both; absent, both are as they always were.
 */
export function announceRequest(
  resource: string,
  time: number,
  rank: number,
  ctx: {
    emit(event: RequestedEvent): void
    broadcast(msg: { type: 'request'; resource: string; time: number; mode?: 'shared' }): void
  },
  extra: { mode?: 'shared' } = {},
): void {
  ctx.emit({ type: 'requested', resource, time, token: fencingToken(time, rank), ...extra })
  ctx.broadcast({ type: 'request', resource, time, ...extra })
}
